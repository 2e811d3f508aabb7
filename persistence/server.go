package persistence

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ServerOptions configure a private redis-server process.
type ServerOptions struct {
	// Binary is the redis-server executable; default "redis-server" on PATH.
	Binary string
	// Dir is the data directory (created if missing); it holds the
	// append-only file, so a server restarted on the same Dir keeps its data.
	Dir string
	// Port to listen on, on 127.0.0.1; 0 picks a free one.
	Port int
	// AppendOnly turns on the append-only file with fsync every second.
	AppendOnly bool
}

// Server is a redis-server process this program started and owns.
type Server struct {
	opts ServerOptions
	addr string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

// StartServer starts redis-server on loopback and waits until it answers.
// It fails with ErrNoServer when the binary is missing or does not come up.
func StartServer(ctx context.Context, o ServerOptions) (*Server, error) {
	if o.Binary == "" {
		o.Binary = "redis-server"
	}
	bin, err := exec.LookPath(o.Binary)
	if err != nil {
		return nil, fmt.Errorf("%w: %s not found on PATH: %v", ErrNoServer, o.Binary, err)
	}
	o.Binary = bin
	if o.Dir == "" {
		return nil, fmt.Errorf("%w: no data directory given", ErrNoServer)
	}
	// redis-server changes into --dir before it opens --logfile, so a
	// relative directory would be looked up twice.
	if o.Dir, err = filepath.Abs(o.Dir); err != nil {
		return nil, fmt.Errorf("%w: data directory: %v", ErrNoServer, err)
	}
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("%w: data directory: %v", ErrNoServer, err)
	}
	if o.Port == 0 {
		if o.Port, err = freePort(); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNoServer, err)
		}
	}
	s := &Server{opts: o, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(o.Port))}
	if err := s.Start(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Addr returns host:port.
func (s *Server) Addr() string { return s.addr }

// Dir returns the data directory.
func (s *Server) Dir() string { return s.opts.Dir }

// Start starts the process again after Stop, on the same port and data
// directory (fault tests stop and restart a server). It is a no-op if the
// server is running.
func (s *Server) Start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return nil
	}
	aof := "no"
	if s.opts.AppendOnly {
		aof = "yes"
	}
	args := []string{
		"--bind", "127.0.0.1", "--port", strconv.Itoa(s.opts.Port),
		"--dir", s.opts.Dir, "--save", "", "--appendonly", aof, "--appendfsync", "everysec",
		"--daemonize", "no", "--protected-mode", "yes", "--logfile", filepath.Join(s.opts.Dir, "redis.log"),
	}
	cmd := exec.Command(s.opts.Binary, args...)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%w: starting %s: %v", ErrNoServer, s.opts.Binary, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	s.cmd, s.done = cmd, done

	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := ping(s.addr); err == nil {
			return nil
		}
		select {
		case <-done:
			s.cmd = nil
			return fmt.Errorf("%w: redis-server exited at start; see %s", ErrNoServer, filepath.Join(s.opts.Dir, "redis.log"))
		case <-ctx.Done():
			s.stopLocked()
			return fmt.Errorf("%w: %v", ErrNoServer, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.stopLocked()
			return fmt.Errorf("%w: redis-server on %s did not answer within 10s", ErrNoServer, s.addr)
		}
	}
}

// Stop stops the process (SIGTERM, then SIGKILL after 5 s) and waits for it.
// With the append-only file on, a SIGTERM'd server has flushed what it
// acknowledged.
func (s *Server) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopLocked()
}

func (s *Server) stopLocked() error {
	if s.cmd == nil {
		return nil
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	s.cmd = nil
	return nil
}

// ping sends a RESP PING on a fresh connection and expects +PONG.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(500 * time.Millisecond))
	if _, err := c.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return errors.New("unexpected reply " + strings.TrimSpace(line))
	}
	return nil
}

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
