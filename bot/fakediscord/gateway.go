package fakediscord

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// Gateway opcodes and close codes the fake uses.
const (
	opDispatch       = 0
	opHeartbeat      = 1
	opIdentify       = 2
	opPresenceUpdate = 3
	opVoiceState     = 4
	opResume         = 6
	opReconnect      = 7
	opRequestMembers = 8
	opInvalidSession = 9
	opHello          = 10
	opHeartbeatACK   = 11

	closeUnknownOpcode    = 4001
	closeDecodeError      = 4002
	closeNotAuthenticated = 4003
	closeAuthFailed       = 4004
	closeAlreadyAuthed    = 4005
	closeInvalidShard     = 4010
)

// GatewayState summarises the fake's gateway side for tests.
type GatewayState struct {
	Identifies int // successful IDENTIFYs (new sessions)
	Resumes    int // successful RESUMEs
	Connected  int // connections currently attached to a session
	Heartbeats int // heartbeats received in total
	// ConnHeartbeats counts heartbeats on the connection that identified or
	// resumed last. discordgo sends its first heartbeat just after Open
	// returns; wait for ConnHeartbeats > 0 before dropping a connection, or
	// discordgo v0.29.0's late first heartbeat may close its own next
	// connection (a race inside discordgo's reconnect, not in the fake).
	ConnHeartbeats int
	Intents        int    // intents of the last IDENTIFY
	Shard          [2]int // shard of the last IDENTIFY ([0 0] if none was sent)
	Compress       bool   // compress flag of the last IDENTIFY
	Version        string // gateway version the last connection asked for (?v=)
	Encoding       string // encoding the last connection asked for (?encoding=)
}

// gwSession is a gateway session: it outlives connections and can be resumed.
type gwSession struct {
	id       string
	order    int
	shard    [2]int
	compress bool
	seq      int64
	events   []gwEvent
	conn     *gwConn
}

// gwEvent is a dispatched event kept for replay on RESUME.
type gwEvent struct {
	seq   int64
	frame []byte
}

// gwFrame is one outgoing WebSocket message.
type gwFrame struct {
	data      []byte
	binary    bool
	closeCode int // non-zero: send a close frame with this code and hang up
}

// gwConn is one WebSocket connection.
type gwConn struct {
	ws         *websocket.Conn
	out        chan gwFrame
	done       chan struct{}
	once       sync.Once
	session    *gwSession // guarded by Server.mu
	heartbeats int        // guarded by Server.mu
	noACK      bool       // guarded by Server.mu: heartbeats go unacknowledged
	log        *GatewayConn
}

// GatewayConn records one gateway connection as the fake saw it, for tests
// of a gateway client: where it connected, what it sent, how it ended.
type GatewayConn struct {
	// Path is the path the client dialled: "/ws" for the URL of GET
	// /gateway, "/ws-resume" for the resume_gateway_url of READY.
	Path string
	// Query is the raw query string, e.g. "v=10&encoding=json".
	Query string
	// Identify is the d of the IDENTIFY sent on the connection, if any.
	Identify json.RawMessage
	// Resume is the d of the RESUME sent on the connection, if any.
	Resume json.RawMessage
	// Heartbeats counts the heartbeats received; Seqs holds their d
	// (-1 for null), in order.
	Heartbeats int
	Seqs       []int64
	// Closed reports whether the connection has ended.
	Closed bool
	// ClientClose is the close code of the close frame the client sent:
	// 0 if it sent none (the fake hung up, or the connection is open), 1006
	// if the client dropped the connection without one.
	ClientClose int
}

// kill cuts the connection without a close frame.
func (c *gwConn) kill() {
	c.once.Do(func() {
		close(c.done)
		c.ws.Close() // abrupt close: the peer sees a read error, like a network drop
	})
}

// send queues a frame; a peer that does not keep up is disconnected.
func (c *gwConn) send(f gwFrame) {
	select {
	case c.out <- f:
	default:
		c.kill()
	}
}

func (c *gwConn) writeLoop() {
	for {
		select {
		case <-c.done:
			return
		case f := <-c.out:
			_ = c.ws.SetWriteDeadline(time.Now().Add(5 * time.Second))
			if f.closeCode != 0 {
				_ = c.ws.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(f.closeCode, string(f.data)))
				c.kill()
				return
			}
			kind := websocket.TextMessage
			if f.binary {
				kind = websocket.BinaryMessage
			}
			if err := c.ws.WriteMessage(kind, f.data); err != nil {
				c.kill()
				return
			}
		}
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("fakediscord: marshal of internal value: " + err.Error()) // only maps of plain values are marshalled
	}
	return b
}

// serveGateway upgrades the request and runs the connection.
func (s *Server) serveGateway(w http.ResponseWriter, r *http.Request) {
	up := websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
	ws, err := up.Upgrade(w, r, nil)
	if err != nil {
		return // Upgrade has answered the client
	}
	c := &gwConn{ws: ws, out: make(chan gwFrame, 1024), done: make(chan struct{}),
		log: &GatewayConn{Path: strings.TrimSuffix(r.URL.Path, "/"), Query: r.URL.RawQuery}}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ws.Close()
		return
	}
	s.connLog = append(s.connLog, c.log)
	s.notifyLocked()
	s.conns[c] = true
	s.gw.Version = r.URL.Query().Get("v")
	s.gw.Encoding = r.URL.Query().Get("encoding")
	s.wg.Add(2)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		c.writeLoop()
	}()
	defer s.wg.Done()
	defer func() {
		c.kill()
		s.mu.Lock()
		delete(s.conns, c)
		c.log.Closed = true
		if c.session != nil && c.session.conn == c {
			c.session.conn = nil
			s.gw.Connected--
		}
		s.notifyLocked()
		s.mu.Unlock()
	}()
	if enc := r.URL.Query().Get("encoding"); enc != "" && enc != "json" {
		c.send(gwFrame{closeCode: closeDecodeError, data: []byte("Error while decoding payload.")})
		return
	}
	c.send(gwFrame{data: mustJSON(map[string]any{"op": opHello, "d": map[string]any{
		"heartbeat_interval": s.opts.HeartbeatInterval.Milliseconds(), "_trace": []string{"fakediscord"}}})})
	for {
		_, data, err := ws.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) {
				s.mu.Lock()
				c.log.ClientClose = ce.Code
				s.mu.Unlock()
			}
			return
		}
		s.mu.Lock()
		s.gatewayFrameLocked(c, data)
		s.notifyLocked() // the connection's record changed
		s.mu.Unlock()
	}
}

// gatewayFrameLocked handles one frame from the bot; s.mu must be held.
func (s *Server) gatewayFrameLocked(c *gwConn, data []byte) {
	var p struct {
		Op int             `json:"op"`
		D  json.RawMessage `json:"d"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		c.send(gwFrame{closeCode: closeDecodeError, data: []byte("Error while decoding payload.")})
		return
	}
	switch p.Op {
	case opHeartbeat:
		s.gw.Heartbeats++
		c.heartbeats++
		c.log.Heartbeats++
		var seq *int64
		_ = json.Unmarshal(p.D, &seq) // a malformed d is recorded as null
		if seq == nil {
			c.log.Seqs = append(c.log.Seqs, -1)
		} else {
			c.log.Seqs = append(c.log.Seqs, *seq)
		}
		if c == s.lastConn {
			s.gw.ConnHeartbeats = c.heartbeats
		}
		if !c.noACK {
			c.send(gwFrame{data: mustJSON(map[string]any{"op": opHeartbeatACK, "d": nil})})
		}
		s.notifyLocked()
	case opIdentify:
		c.log.Identify = append(json.RawMessage(nil), p.D...)
		s.identifyLocked(c, p.D)
	case opResume:
		c.log.Resume = append(json.RawMessage(nil), p.D...)
		s.resumeLocked(c, p.D)
	case opPresenceUpdate, opVoiceState, opRequestMembers:
		if c.session == nil {
			c.send(gwFrame{closeCode: closeNotAuthenticated, data: []byte("Not authenticated.")})
		}
	default:
		c.send(gwFrame{closeCode: closeUnknownOpcode, data: []byte("Unknown opcode.")})
	}
}

func (s *Server) tokenOK(token string) bool {
	return strings.TrimPrefix(token, "Bot ") == s.opts.Token
}

func (s *Server) identifyLocked(c *gwConn, d json.RawMessage) {
	var id struct {
		Token    string  `json:"token"`
		Intents  int     `json:"intents"`
		Compress bool    `json:"compress"`
		Shard    *[2]int `json:"shard"`
	}
	switch {
	case json.Unmarshal(d, &id) != nil:
		c.send(gwFrame{closeCode: closeDecodeError, data: []byte("Error while decoding payload.")})
		return
	case c.session != nil:
		c.send(gwFrame{closeCode: closeAlreadyAuthed, data: []byte("Already authenticated.")})
		return
	case !s.tokenOK(id.Token):
		c.send(gwFrame{closeCode: closeAuthFailed, data: []byte("Authentication failed.")})
		return
	case s.identifyClose != 0:
		c.send(gwFrame{closeCode: s.identifyClose, data: []byte(closeReasons[s.identifyClose])})
		return
	case id.Shard != nil && (id.Shard[1] < 1 || id.Shard[0] < 0 || id.Shard[0] >= id.Shard[1]):
		c.send(gwFrame{closeCode: closeInvalidShard, data: []byte("Invalid shard.")})
		return
	}
	ses := &gwSession{id: randomToken(16), order: s.gw.Identifies + 1, compress: id.Compress, conn: c}
	if id.Shard != nil {
		ses.shard = *id.Shard
	}
	s.sessions[ses.id] = ses
	c.session = ses
	s.lastConn, s.gw.ConnHeartbeats = c, c.heartbeats
	s.gw.Identifies++
	s.gw.Connected++
	s.gw.Intents, s.gw.Shard, s.gw.Compress = id.Intents, ses.shard, id.Compress
	ready := map[string]any{
		"v": 9, "user": s.botUser(), "session_id": ses.id, "resume_gateway_url": s.GatewayResumeURL(),
		"guilds": []any{}, "private_channels": []any{}, "application": map[string]any{"id": s.opts.AppID, "flags": 0},
		"_trace": []string{"fakediscord"},
	}
	if id.Shard != nil {
		ready["shard"] = ses.shard
	}
	s.dispatchLocked(ses, "READY", ready)
	s.notifyLocked()
}

func (s *Server) resumeLocked(c *gwConn, d json.RawMessage) {
	var rp struct {
		Token     string `json:"token"`
		SessionID string `json:"session_id"`
		Seq       int64  `json:"seq"`
	}
	if json.Unmarshal(d, &rp) != nil {
		c.send(gwFrame{closeCode: closeDecodeError, data: []byte("Error while decoding payload.")})
		return
	}
	if !s.tokenOK(rp.Token) {
		c.send(gwFrame{closeCode: closeAuthFailed, data: []byte("Authentication failed.")})
		return
	}
	ses, ok := s.sessions[rp.SessionID]
	if !ok || c.session != nil {
		c.send(gwFrame{data: mustJSON(map[string]any{"op": opInvalidSession, "d": false})})
		return
	}
	if old := ses.conn; old != nil {
		old.kill()
		old.session = nil
		s.gw.Connected--
	}
	ses.conn = c
	c.session = ses
	s.lastConn, s.gw.ConnHeartbeats = c, c.heartbeats
	for _, e := range ses.events {
		if e.seq > rp.Seq {
			c.send(gwFrame{data: e.frame})
		}
	}
	s.gw.Resumes++
	s.gw.Connected++
	s.dispatchLocked(ses, "RESUMED", map[string]any{"_trace": []string{"fakediscord"}})
	s.notifyLocked()
}

// dispatchLocked sends an op 0 event on the session, or keeps it for replay
// if the session is between connections; s.mu must be held.
func (s *Server) dispatchLocked(ses *gwSession, event string, d any) {
	ses.seq++
	frame := mustJSON(map[string]any{"op": opDispatch, "t": event, "s": ses.seq, "d": d})
	if event != "READY" && event != "RESUMED" {
		ses.events = append(ses.events, gwEvent{seq: ses.seq, frame: frame})
	}
	if ses.conn == nil {
		return
	}
	if event == "READY" && ses.compress {
		var b bytes.Buffer
		zw := zlib.NewWriter(&b)
		_, _ = zw.Write(frame) // writes to a bytes.Buffer do not fail
		_ = zw.Close()
		ses.conn.send(gwFrame{data: b.Bytes(), binary: true})
		return
	}
	ses.conn.send(gwFrame{data: frame})
}

// sessionForLocked picks the newest session whose shard serves guildID
// (Discord's rule: (guild_id >> 22) % shard_count; DMs go to shard 0).
func (s *Server) sessionForLocked(guildID string) *gwSession {
	var best *gwSession
	for _, ses := range s.sessions {
		if count := ses.shard[1]; count > 1 {
			shard := 0
			if gid, err := strconv.ParseUint(guildID, 10, 64); err == nil {
				shard = int((gid >> 22) % uint64(count))
			}
			if shard != ses.shard[0] {
				continue
			}
		}
		if best == nil || ses.order > best.order {
			best = ses
		}
	}
	return best
}

// Dispatch sends an arbitrary gateway event (for example GUILD_CREATE) to the
// session serving guildID. It returns ErrNoBot if no bot has identified.
func (s *Server) Dispatch(guildID, event string, data any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ses := s.sessionForLocked(guildID)
	if ses == nil {
		return ErrNoBot
	}
	s.dispatchLocked(ses, event, data)
	return nil
}

// DropGateway cuts every gateway connection without a close frame, as a
// network failure would. Sessions survive, so the bot can RESUME; events
// dispatched meanwhile are replayed then. It returns the number cut.
func (s *Server) DropGateway() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for c := range s.conns {
		c.kill()
		n++
	}
	return n
}

// RequestReconnect sends op 7 (Reconnect) on every connection.
func (s *Server) RequestReconnect() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		c.send(gwFrame{data: mustJSON(map[string]any{"op": opReconnect, "d": nil})})
	}
}

// RequestHeartbeat sends op 1 (Heartbeat) on every connection; the client
// should heartbeat at once.
func (s *Server) RequestHeartbeat() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		c.send(gwFrame{data: mustJSON(map[string]any{"op": opHeartbeat, "d": nil})})
	}
}

// closeReasons are the texts Discord sends with its gateway close codes.
var closeReasons = map[int]string{
	4000: "Unknown error.", closeUnknownOpcode: "Unknown opcode.", closeDecodeError: "Error while decoding payload.",
	closeNotAuthenticated: "Not authenticated.", closeAuthFailed: "Authentication failed.",
	closeAlreadyAuthed: "Already authenticated.", 4008: "Rate limited.", closeInvalidShard: "Invalid shard.",
	4011: "Sharding required.", 4012: "Invalid API version.", 4013: "Invalid intent(s).", 4014: "Disallowed intent(s).",
}

// FailIdentify makes the fake answer every IDENTIFY from now on by closing
// the connection with code, without READY: 4004 (authentication failed) as
// for a bot token that was reset in the developer portal while the REST
// side still accepted it, 4014 for a privileged intent the portal has not
// enabled, and so on. 0 restores normal answers. RESUME is not affected.
func (s *Server) FailIdentify(code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.identifyClose = code
}

// InvalidateSessions forgets every gateway session, so that the next RESUME
// is answered with op 9 (Invalid Session) and the bot must IDENTIFY again.
func (s *Server) InvalidateSessions() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id := range s.sessions {
		delete(s.sessions, id)
	}
}

// GatewayState returns a snapshot of the gateway side.
func (s *Server) GatewayState() GatewayState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gw
}

// WaitGateway blocks until cond holds for the gateway state, and returns it.
func (s *Server) WaitGateway(ctx context.Context, cond func(GatewayState) bool) (GatewayState, error) {
	var st GatewayState
	err := s.waitFor(ctx, func() bool {
		st = s.gw
		return cond(st)
	})
	return st, err
}

// WithholdACKs makes every connection open now stop acknowledging
// heartbeats, as a half-dead link (a zombie connection) looks to the
// client. Connections opened later are acknowledged normally.
func (s *Server) WithholdACKs() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		c.noACK = true
	}
}

// InvalidSession sends op 9 (Invalid Session) with d = resumable on every
// connection. With resumable false the sessions of those connections are
// forgotten, so a RESUME is refused and the client must IDENTIFY again.
func (s *Server) InvalidSession(resumable bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		if !resumable && c.session != nil {
			delete(s.sessions, c.session.id)
		}
		c.send(gwFrame{data: mustJSON(map[string]any{"op": opInvalidSession, "d": resumable})})
	}
}

// CloseGateway closes every gateway connection with a close frame carrying
// code and Discord's text for it. Sessions survive (a client may RESUME),
// except after 4007 (invalid seq) and 4009 (session timed out), which
// forget them as Discord does.
func (s *Server) CloseGateway(code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		if (code == 4007 || code == 4009) && c.session != nil {
			delete(s.sessions, c.session.id)
		}
		c.send(gwFrame{closeCode: code, data: []byte(closeReasons[code])})
	}
}

// GatewayConns returns a record of every gateway connection so far, oldest
// first.
func (s *Server) GatewayConns() []GatewayConn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gatewayConnsLocked()
}

func (s *Server) gatewayConnsLocked() []GatewayConn {
	out := make([]GatewayConn, len(s.connLog))
	for i, c := range s.connLog {
		out[i] = *c
		out[i].Seqs = append([]int64(nil), c.Seqs...)
	}
	return out
}

// WaitGatewayConns blocks until cond holds for the connection records, and
// returns them.
func (s *Server) WaitGatewayConns(ctx context.Context, cond func([]GatewayConn) bool) ([]GatewayConn, error) {
	var conns []GatewayConn
	err := s.waitFor(ctx, func() bool {
		conns = s.gatewayConnsLocked()
		return cond(conns)
	})
	return conns, err
}
