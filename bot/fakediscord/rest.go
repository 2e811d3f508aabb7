package fakediscord

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
)

// restHandler answers one REST route: a status and a JSON value, or an error.
type restHandler func(r *http.Request, body []byte) (int, any, *apiError)

// apiPrefix matches the /api or /api/vN prefix of REST paths.
var apiPrefix = regexp.MustCompile(`^/api(/v[0-9]+)?`)

// mux builds the REST router (paths without the /api/vN prefix).
func (s *Server) mux() *http.ServeMux {
	m := http.NewServeMux()
	route := func(pattern string, auth bool, h restHandler) {
		m.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body) // an in-memory reader, see serveHTTP
			if auth && r.Header.Get("Authorization") != "Bot "+s.opts.Token {
				writeJSON(w, http.StatusUnauthorized, &apiError{Code: CodeUnauthorized, Message: "401: Unauthorized"})
				return
			}
			status, out, e := h(r, body)
			if e != nil {
				writeJSON(w, e.Status, e)
				return
			}
			writeJSON(w, status, out)
		})
	}
	route("GET /users/@me", true, s.restMe)
	route("GET /applications/@me", true, s.restApplication)
	route("GET /gateway", false, s.restGateway)
	route("GET /gateway/bot", true, s.restGatewayBot)
	for _, base := range []string{"/applications/{app}/commands", "/applications/{app}/guilds/{guild}/commands"} {
		route("GET "+base, true, s.restCommands)
		route("PUT "+base, true, s.restBulkOverwrite)
		route("POST "+base, true, s.restCommandCreate)
		route("DELETE "+base+"/{cmd}", true, s.restCommandDelete)
	}
	route("POST /interactions/{id}/{token}/callback", false, s.restCallback)
	route("POST /webhooks/{app}/{token}", false, s.restFollowup)
	route("GET /webhooks/{app}/{token}/messages/{msg}", false, s.restWebhookMessage)
	route("PATCH /webhooks/{app}/{token}/messages/{msg}", false, s.restWebhookEdit)
	route("DELETE /webhooks/{app}/{token}/messages/{msg}", false, s.restWebhookDelete)
	route("GET /guilds/{guild}/channels", true, s.restGuildChannels)
	route("GET /guilds/{guild}/roles", true, s.restGuildRoles)
	route("POST /channels/{channel}/messages", true, s.restChannelCreate)
	route("GET /channels/{channel}/messages/{msg}", true, s.restChannelMessage)
	route("PATCH /channels/{channel}/messages/{msg}", true, s.restChannelEdit)
	route("DELETE /channels/{channel}/messages/{msg}", true, s.restChannelDelete)
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, &apiError{Code: 0, Message: "404: Not Found"})
	})
	return m
}

// statusRecorder remembers the status a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (w *statusRecorder) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// serveHTTP is the fake's single HTTP entry point: the gateway upgrade at
// /ws (and /ws-resume, the resume_gateway_url), REST under /api.
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	down := s.unreachable
	s.mu.Unlock()
	if down {
		hangUp(w)
		return
	}
	if p := strings.TrimSuffix(r.URL.Path, "/"); p == "/ws" || p == "/ws-resume" {
		s.serveGateway(w, r)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/attachments/") {
		s.serveAttachment(w, r)
		return
	}
	loc := apiPrefix.FindStringIndex(r.URL.Path)
	if loc == nil {
		writeJSON(w, http.StatusNotFound, &apiError{Message: "404: Not Found"})
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 25<<20))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, errInvalidJSON())
		return
	}
	r2 := r.Clone(r.Context())
	u := *r.URL
	u.Path = r.URL.Path[loc[1]:]
	u.RawPath = ""
	r2.URL = &u
	r2.Body = io.NopCloser(bytes.NewReader(body))

	s.mu.Lock()
	idx := len(s.calls)
	s.calls = append(s.calls, Call{Method: r.Method, Path: u.Path, Query: u.RawQuery, Body: body, At: s.now()})
	s.mu.Unlock()

	h := w.Header()
	h.Set("X-RateLimit-Limit", "5")
	h.Set("X-RateLimit-Remaining", "4")
	h.Set("X-RateLimit-Reset-After", "1.000")
	h.Set("X-RateLimit-Bucket", "fake")
	rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
	s.mu.Lock()
	f, kind := s.faultLocked(r.Method, u.Path)
	s.mu.Unlock()
	switch {
	case f == nil:
		s.restMux.ServeHTTP(rec, r2)
	case kind == FaultResetBefore || kind == FaultResetAfter:
		rec.status = 0
		serveFault(f, kind, w, r2, s.restMux)
	default:
		serveFault(f, kind, rec, r2, s.restMux)
	}

	s.mu.Lock()
	s.calls[idx].Status = rec.status
	s.mu.Unlock()
}

// hangUp closes the request's connection without writing a response (see
// SetUnreachable).
func hangUp(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close() // the point is to drop it
			return
		}
	}
	w.WriteHeader(http.StatusServiceUnavailable) // not hijackable (HTTP/2): the nearest thing
}

// writeJSON writes v as JSON with status; 204 writes no body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	if status == http.StatusNoContent {
		w.WriteHeader(status)
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"message":"500: Internal Server Error","code":0}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b) // the client hung up; nothing to do
}

// decodeBody decodes a JSON body, or the payload_json part of a multipart one.
func decodeBody(r *http.Request, body []byte, v any) *apiError {
	return decodeTyped(r.Header.Get("Content-Type"), body, v)
}

// decodeMessage decodes and checks a message create (create true) or edit
// body into p and returns the files uploaded with it.
func decodeMessage(r *http.Request, body []byte, p *messagePayload, create bool) ([]upload, *apiError) {
	if e := decodeBody(r, body, p); e != nil {
		return nil, e
	}
	files, e := decodeUploads(r.Header.Get("Content-Type"), body)
	if e != nil {
		return nil, e
	}
	p.files = len(files)
	if e := validateMessage(p, create); e != nil {
		return nil, e
	}
	return files, nil
}

// decodeTyped is decodeBody for a body of the given content type.
func decodeTyped(contentType string, body []byte, v any) *apiError {
	if mt, params, err := mime.ParseMediaType(contentType); err == nil && mt == "multipart/form-data" {
		mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
		body = nil
		for {
			p, err := mr.NextPart()
			if err != nil {
				break
			}
			if p.FormName() == "payload_json" {
				body, _ = io.ReadAll(p)
			}
		}
	}
	if err := json.Unmarshal(body, v); err != nil {
		return errInvalidJSON()
	}
	return nil
}

func (s *Server) botUser() map[string]any {
	return map[string]any{"id": s.opts.AppID, "username": s.opts.BotName, "discriminator": "0", "bot": true,
		"global_name": nil, "avatar": nil, "verified": true, "flags": 0}
}

func (s *Server) restMe(*http.Request, []byte) (int, any, *apiError) {
	return http.StatusOK, s.botUser(), nil
}

// restApplication answers GET /applications/@me: the application of the
// bot token, with its ID, its bot user and the hex public key (verify_key)
// that verifies its HTTP interactions.
func (s *Server) restApplication(*http.Request, []byte) (int, any, *apiError) {
	return http.StatusOK, map[string]any{"id": s.opts.AppID, "name": s.opts.BotName, "icon": nil, "description": "",
		"bot_public": true, "bot_require_code_grant": false, "verify_key": s.PublicKeyHex(), "flags": 0,
		"bot": s.botUser(), "summary": "", "team": nil}, nil
}

func (s *Server) restGateway(*http.Request, []byte) (int, any, *apiError) {
	return http.StatusOK, map[string]any{"url": s.GatewayURL()}, nil
}

func (s *Server) restGatewayBot(*http.Request, []byte) (int, any, *apiError) {
	return http.StatusOK, map[string]any{"url": s.GatewayURL(), "shards": max(s.opts.Shards, 1), "session_start_limit": map[string]any{
		"total": 1000, "remaining": 999, "reset_after": 86400000, "max_concurrency": 1}}, nil
}

func (s *Server) checkApp(r *http.Request) *apiError {
	if r.PathValue("app") != s.opts.AppID {
		return &apiError{Status: http.StatusForbidden, Code: 50001, Message: "Missing Access"}
	}
	return nil
}

func (s *Server) restCommands(r *http.Request, _ []byte) (int, any, *apiError) {
	if e := s.checkApp(r); e != nil {
		return 0, nil, e
	}
	return http.StatusOK, s.Commands(r.PathValue("guild")), nil
}

// commandName is Discord's rule for chat input command and option names.
var commandName = regexp.MustCompile(`^[-_\p{L}\p{N}]{1,32}$`)

// validateCommand checks one command definition the way Discord does.
func validateCommand(c *discordgo.ApplicationCommand, at string) *apiError {
	if c.Type == 0 {
		c.Type = discordgo.ChatApplicationCommand
	}
	if c.Type != discordgo.ChatApplicationCommand {
		if c.Name == "" || utf8.RuneCountInString(c.Name) > maxCommandName {
			return formError(at+".name", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 32 in length.")
		}
		return nil
	}
	if !commandName.MatchString(c.Name) || strings.ToLower(c.Name) != c.Name {
		return formError(at+".name", "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
	}
	if n := utf8.RuneCountInString(c.Description); n < 1 || n > maxCommandDescription {
		return formError(at+".description", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
	}
	return validateOptions(c.Options, at+".options")
}

func validateOptions(opts []*discordgo.ApplicationCommandOption, at string) *apiError {
	if len(opts) > maxCommandOptions {
		return formError(at, "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
	}
	seen := map[string]bool{}
	for i, o := range opts {
		oat := fmt.Sprintf("%s.%d", at, i)
		if !commandName.MatchString(o.Name) || strings.ToLower(o.Name) != o.Name {
			return formError(oat+".name", "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
		}
		if seen[o.Name] {
			return formError(oat+".name", "APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS", "Option names must be unique")
		}
		seen[o.Name] = true
		if n := utf8.RuneCountInString(o.Description); n < 1 || n > maxCommandDescription {
			return formError(oat+".description", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
		}
		if len(o.Choices) > maxChoices {
			return formError(oat+".choices", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
		}
		if e := validateOptions(o.Options, oat+".options"); e != nil {
			return e
		}
	}
	return nil
}

// storeCommandLocked gives c its server-side fields, keeping the ID of an
// existing command with the same name and type; s.mu must be held.
func (s *Server) storeCommandLocked(c *discordgo.ApplicationCommand, guild string, old []*discordgo.ApplicationCommand) {
	c.ID = ""
	for _, o := range old {
		if o.Name == c.Name && o.Type == c.Type {
			c.ID = o.ID
		}
	}
	if c.ID == "" {
		c.ID = s.newIDLocked()
	}
	c.ApplicationID = s.opts.AppID
	c.GuildID = guild
	c.Version = s.newIDLocked()
}

func (s *Server) restBulkOverwrite(r *http.Request, body []byte) (int, any, *apiError) {
	if e := s.checkApp(r); e != nil {
		return 0, nil, e
	}
	var cmds []*discordgo.ApplicationCommand
	if e := decodeBody(r, body, &cmds); e != nil {
		return 0, nil, e
	}
	if len(cmds) > maxCommands {
		return 0, nil, formError("_", "BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer in length.")
	}
	seen := map[string]bool{}
	for i, c := range cmds {
		if c == nil {
			return 0, nil, errInvalidJSON()
		}
		if e := validateCommand(c, fmt.Sprint(i)); e != nil {
			return 0, nil, e
		}
		key := fmt.Sprint(c.Type, c.Name)
		if seen[key] {
			return 0, nil, formError(fmt.Sprint(i)+".name", "APPLICATION_COMMANDS_DUPLICATE_NAME", "Application command names must be unique")
		}
		seen[key] = true
	}
	guild := r.PathValue("guild")
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.commands[guild]
	for _, c := range cmds {
		s.storeCommandLocked(c, guild, old)
	}
	s.commands[guild] = cmds
	s.notifyLocked()
	return http.StatusOK, cmds, nil
}

func (s *Server) restCommandCreate(r *http.Request, body []byte) (int, any, *apiError) {
	if e := s.checkApp(r); e != nil {
		return 0, nil, e
	}
	var c discordgo.ApplicationCommand
	if e := decodeBody(r, body, &c); e != nil {
		return 0, nil, e
	}
	if e := validateCommand(&c, "name"); e != nil {
		return 0, nil, e
	}
	guild := r.PathValue("guild")
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.commands[guild]
	s.storeCommandLocked(&c, guild, old)
	kept := []*discordgo.ApplicationCommand{}
	status := http.StatusCreated
	for _, o := range old {
		if o.ID == c.ID {
			status = http.StatusOK
			continue
		}
		kept = append(kept, o)
	}
	s.commands[guild] = append(kept, &c)
	s.notifyLocked()
	return status, &c, nil
}

func (s *Server) restCommandDelete(r *http.Request, _ []byte) (int, any, *apiError) {
	if e := s.checkApp(r); e != nil {
		return 0, nil, e
	}
	guild, id := r.PathValue("guild"), r.PathValue("cmd")
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, c := range s.commands[guild] {
		if c.ID == id {
			s.commands[guild] = append(s.commands[guild][:i:i], s.commands[guild][i+1:]...)
			s.notifyLocked()
			return http.StatusNoContent, nil, nil
		}
	}
	return 0, nil, &apiError{Status: http.StatusNotFound, Code: CodeUnknownCommand, Message: "Unknown application command"}
}

func (s *Server) restChannelCreate(r *http.Request, body []byte) (int, any, *apiError) {
	var p messagePayload
	files, e := decodeMessage(r, body, &p, true)
	if e != nil {
		return 0, nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := r.PathValue("channel") + "/" + p.Nonce
	if p.EnforceNonce && p.Nonce != "" {
		if n, ok := s.nonces[key]; ok && s.now().Sub(n.at) < nonceLifetime {
			return http.StatusOK, s.wireMessage(n.msg), nil
		}
	}
	m := &message{ChannelID: r.PathValue("channel"), GuildID: s.channelGuild[r.PathValue("channel")], Nonce: p.Nonce}
	applyPayload(m, &p, allowedChannelEditFlags|FlagSuppressNotify)
	if e := s.attachLocked(m, &p, files); e != nil {
		return 0, nil, e
	}
	s.addMessageLocked(m)
	if p.EnforceNonce && p.Nonce != "" {
		if s.nonces == nil {
			s.nonces = map[string]nonceEntry{}
		}
		s.nonces[key] = nonceEntry{msg: m, at: s.now()}
	}
	s.notifyLocked()
	return http.StatusOK, s.wireMessage(m), nil
}

// channelMessageLocked finds a message the channel API may touch: present,
// not deleted, not ephemeral; s.mu must be held.
func (s *Server) channelMessageLocked(r *http.Request) (*message, *apiError) {
	m, ok := s.messages[r.PathValue("msg")]
	if !ok || m.Deleted || m.ChannelID != r.PathValue("channel") || m.Flags&FlagEphemeral != 0 {
		return nil, errUnknownMessage()
	}
	return m, nil
}

func (s *Server) restChannelMessage(r *http.Request, _ []byte) (int, any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, e := s.channelMessageLocked(r)
	if e != nil {
		return 0, nil, e
	}
	return http.StatusOK, s.wireMessage(m), nil
}

func (s *Server) restChannelEdit(r *http.Request, body []byte) (int, any, *apiError) {
	var p messagePayload
	files, e := decodeMessage(r, body, &p, false)
	if e != nil {
		return 0, nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m, e := s.channelMessageLocked(r)
	if e != nil {
		return 0, nil, e
	}
	if e := s.attachLocked(m, &p, files); e != nil {
		return 0, nil, e
	}
	applyPayload(m, &p, allowedChannelEditFlags)
	m.Edited = s.now()
	s.shownLocked(m)
	s.notifyLocked()
	return http.StatusOK, s.wireMessage(m), nil
}

func (s *Server) restChannelDelete(r *http.Request, _ []byte) (int, any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, e := s.channelMessageLocked(r)
	if e != nil {
		return 0, nil, e
	}
	m.Deleted = true
	s.notifyLocked()
	return http.StatusNoContent, nil, nil
}

// applyPayload writes the fields present in p onto m. Only flags in
// keepFlags may be set by p; the others keep their current value.
func applyPayload(m *message, p *messagePayload, keepFlags int) {
	if p.Content != nil {
		m.Content = *p.Content
	}
	if p.Components != nil {
		m.Components = append(json.RawMessage(nil), *p.Components...)
	}
	if p.Embeds != nil {
		m.Embeds = append(json.RawMessage(nil), *p.Embeds...)
	}
	if p.Flags != nil {
		m.Flags = m.Flags&^keepFlags | *p.Flags&keepFlags
	}
	if p.AllowedMentions != nil {
		m.AllowedMentions = p.AllowedMentions
	}
}
