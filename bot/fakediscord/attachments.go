package fakediscord

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Limits on files attached to a message.
const (
	maxAttachments = 10
)

// Attachment is a file attached to a message, as the bot uploaded it.
type Attachment struct {
	ID          string // snowflake given by the fake
	Filename    string // as uploaded, without directories
	ContentType string // as the bot declared it; application/octet-stream when it did not
	Data        []byte // the file's bytes
}

// URL returns the CDN address Discord gives the attachment of a message in
// channelID. The fake's Client serves it.
func (a Attachment) URL(channelID string) string {
	return "https://cdn.discordapp.com/attachments/" + channelID + "/" + a.ID + "/" + url.PathEscape(a.Filename)
}

// Attachment returns the message's attachment with the given file name.
func (m Message) Attachment(filename string) (Attachment, bool) {
	for _, a := range m.Attachments {
		if a.Filename == filename {
			return a, true
		}
	}
	return Attachment{}, false
}

// upload is a file sent in a multipart message body.
type upload struct {
	name, contentType string
	data              []byte
}

// decodeUploads returns the files of a multipart/form-data body (every
// part but payload_json: Discord's "files[n]", or the older "file"), and
// nil for a JSON body. A file without a name, or more than maxAttachments
// files, is refused the way Discord refuses them.
func decodeUploads(contentType string, body []byte) ([]upload, *apiError) {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || mt != "multipart/form-data" {
		return nil, nil
	}
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	var out []upload
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, errInvalidJSON()
		}
		if p.FormName() == "payload_json" {
			continue
		}
		data, err := io.ReadAll(p)
		if err != nil {
			return nil, errInvalidJSON()
		}
		at := "files." + strconv.Itoa(len(out))
		if p.FileName() == "" {
			return nil, formError(at+".filename", "BASE_TYPE_REQUIRED", "This field is required")
		}
		ct := p.Header.Get("Content-Type")
		if ct == "" {
			ct = "application/octet-stream"
		}
		out = append(out, upload{name: p.FileName(), contentType: ct, data: data})
	}
	if len(out) > maxAttachments {
		return nil, formError("files", "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer in length.")
	}
	return out, nil
}

// payloadJSON returns the JSON of a message body: the body itself, or the
// payload_json part of a multipart body (nil if it has none).
func payloadJSON(contentType string, body []byte) []byte {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || mt != "multipart/form-data" {
		return body
	}
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	for {
		p, err := mr.NextPart()
		if err != nil {
			return nil
		}
		if p.FormName() == "payload_json" {
			b, _ := io.ReadAll(p)
			return b
		}
	}
}

// keptAttachments returns the attachments of m that an edit keeps: those
// whose IDs p.Attachments lists, or all of them when p leaves the field
// out (Discord's rule for PATCH). Entries naming new uploads by index are
// ignored: uploads are always added.
func keptAttachments(m *message, p *messagePayload) []Attachment {
	if p.Attachments == nil {
		return m.Attachments
	}
	var list []struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(*p.Attachments, &list) // checked in validateMessage
	keep := map[string]bool{}
	for _, a := range list {
		keep[strings.Trim(string(a.ID), `"`)] = true
	}
	var out []Attachment
	for _, a := range m.Attachments {
		if keep[a.ID] {
			out = append(out, a)
		}
	}
	return out
}

// attachLocked sets m's attachments after a message create or edit with
// payload p and uploads files: the kept ones, then the new files. It
// fails, leaving m unchanged, when the message would hold more than
// maxAttachments. s.mu must be held.
func (s *Server) attachLocked(m *message, p *messagePayload, files []upload) *apiError {
	kept := keptAttachments(m, p)
	if len(kept)+len(files) > maxAttachments {
		return formError("attachments", "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer in length.")
	}
	out := append([]Attachment(nil), kept...)
	for _, f := range files {
		out = append(out, Attachment{ID: s.newIDLocked(), Filename: f.name, ContentType: f.contentType, Data: f.data})
	}
	m.Attachments = out
	return nil
}

// wireAttachments renders a message's attachments as the REST API shows
// them.
func wireAttachments(m *message) []any {
	out := []any{}
	for _, a := range m.Attachments {
		u := a.URL(m.ChannelID)
		out = append(out, map[string]any{"id": a.ID, "filename": a.Filename, "size": len(a.Data),
			"content_type": a.ContentType, "url": u, "proxy_url": u})
	}
	return out
}

// serveAttachment answers GET /attachments/{channel}/{id}/{filename}, the
// CDN address of an attachment, with its bytes.
func (s *Server) serveAttachment(w http.ResponseWriter, r *http.Request) {
	parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/attachments/"), "/", 3)
	if r.Method != http.MethodGet || len(parts) != 3 {
		writeJSON(w, http.StatusNotFound, &apiError{Message: "404: Not Found"})
		return
	}
	s.mu.Lock()
	var found *Attachment
	for _, m := range s.channels[parts[0]] {
		for i, a := range m.Attachments {
			if a.ID == parts[1] && a.Filename == parts[2] && !m.Deleted {
				found = &m.Attachments[i]
			}
		}
	}
	var data []byte
	var ct string
	if found != nil {
		data, ct = found.Data, found.ContentType
	}
	s.mu.Unlock()
	if found == nil {
		writeJSON(w, http.StatusNotFound, &apiError{Message: "404: Not Found"})
		return
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	_, _ = w.Write(data) // the client hung up; nothing to do
}
