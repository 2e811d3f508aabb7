package fakediscord

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// Headers of Discord's signed HTTP interactions.
const (
	HeaderSignature = "X-Signature-Ed25519"
	HeaderTimestamp = "X-Signature-Timestamp"
)

// signedPost sends body to url signed with the fake's key (or, if forge is
// true, with a signature that does not verify) and returns the answer.
func (s *Server) signedPost(ctx context.Context, url string, body []byte, forge bool) (int, string, []byte, error) {
	ts := strconv.FormatInt(s.now().Unix(), 10)
	sig := ed25519.Sign(s.priv, append([]byte(ts), body...))
	if forge {
		sig[0] ^= 0xff
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, "", nil, fmt.Errorf("fakediscord: interactions request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Discord-Interactions/1.0 (+https://discord.com)")
	req.Header.Set(HeaderSignature, hex.EncodeToString(sig))
	req.Header.Set(HeaderTimestamp, ts)
	resp, err := (&http.Client{Transport: s.transport, Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return 0, "", nil, fmt.Errorf("fakediscord: interactions POST: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 25<<20))
	if err != nil {
		return 0, "", nil, fmt.Errorf("fakediscord: reading interactions answer: %w", err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), b, nil
}

// postInteraction delivers ix in HTTP interactions mode; the bot's HTTP
// answer is its interaction response.
func (s *Server) postInteraction(url string, ix *interaction) {
	defer s.wg.Done()
	status, ct, body, err := s.signedPost(s.ctx, url, ix.payload, false)
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case err != nil:
		s.failLocked(ix, err.Error())
	case status/100 != 2:
		if !ix.acked {
			s.failLocked(ix, fmt.Sprintf("interactions endpoint answered %d", status))
		}
	case len(bytes.TrimSpace(body)) == 0 && ix.acked:
		// Acknowledged through the REST callback already.
	default:
		if e := s.callbackLocked(ix, ct, body); e != nil {
			if e.Code != CodeUnknownInteraction {
				s.rejectLocked(ix, e)
				s.failLocked(ix, "invalid inline interaction response: "+e.Error())
			}
		}
	}
}

// VerifyEndpoint does what Discord does when an interactions endpoint URL is
// saved in the developer portal: a correctly signed PING must be answered
// with 200 and {"type":1}, and a PING with a bad signature must be refused
// with 401. It returns nil if the endpoint passes both checks.
func (s *Server) VerifyEndpoint(ctx context.Context, url string) error {
	ping := mustJSON(map[string]any{"id": "1", "application_id": s.opts.AppID, "type": interactionPing,
		"token": "fake.ping." + randomToken(8), "version": 1})
	status, _, body, err := s.signedPost(ctx, url, ping, false)
	if err != nil {
		return err
	}
	var pong struct {
		Type int `json:"type"`
	}
	if status != http.StatusOK || json.Unmarshal(body, &pong) != nil || pong.Type != callbackPong {
		return fmt.Errorf("fakediscord: signed PING answered %d %q, want 200 {\"type\":1}", status, body)
	}
	status, _, _, err = s.signedPost(ctx, url, ping, true)
	if err != nil {
		return err
	}
	if status != http.StatusUnauthorized {
		return fmt.Errorf("fakediscord: PING with a bad signature answered %d, want 401", status)
	}
	return nil
}
