package nn

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tttbot/ttt-bot/game"
)

// Format is the value of the "format" metadata key of the weights files
// this package writes and reads.
const Format = "ttt-bot/nn/1"

// maxHeader is the largest header Unmarshal accepts. Real headers are a few
// kilobytes plus the training and evaluation reports.
const maxHeader = 16 << 20

// Meta is the metadata stored with a network in its weights file.
type Meta struct {
	// Rules is the rules notation of the network.
	Rules string
	// Arch is the network's architecture.
	Arch Arch
	// Version is free text naming the model, e.g. "shipped-2026-11-21" or
	// "redis-7".
	Version string
	// Created is when the model was made; the zero time is not stored.
	Created time.Time
	// Training summarises the training data (JSON), if known.
	Training json.RawMessage
	// Eval holds evaluation results (JSON), if known.
	Eval json.RawMessage
}

// tensor is one named tensor of a weights file: its shape and where its
// values sit in a Net's parameters. Weights are stored [out, in] in the
// file and input-major in a Net.
type tensor struct {
	name  string
	shape []int
	// The tensor's element (o, i), or element o of a bias, is parameter
	// off + o*ostride + i*istride.
	off, ostride, istride int
}

// size returns the number of elements of t.
func (t tensor) size() int {
	n := 1
	for _, d := range t.shape {
		n *= d
	}
	return n
}

// tensors lists s's tensors sorted by name, the order of the data section.
func (s *shape) tensors() []tensor {
	var ts []tensor
	weight := func(name string, l layer, from, rows int) {
		ts = append(ts,
			tensor{name: name + ".weight", shape: []int{rows, l.in}, off: l.w + from, ostride: 1, istride: l.out},
			tensor{name: name + ".bias", shape: []int{rows}, off: l.b + from, ostride: 1})
	}
	for i, l := range s.layers[:len(s.layers)-1] {
		weight("body."+strconv.Itoa(i), l, 0, l.out)
	}
	h := s.head()
	weight("policy", h, 0, s.cells)
	weight("human", h, s.cells, s.cells)
	weight("value", h, 2*s.cells, 1)
	slices.SortFunc(ts, func(a, b tensor) int { return strings.Compare(a.name, b.name) })
	return ts
}

// each calls f with the parameter index of every element of t, in the
// file's row-major order.
func (t tensor) each(f func(k, param int)) {
	if len(t.shape) == 1 {
		for o := range t.shape[0] {
			f(o, t.off+o*t.ostride)
		}
		return
	}
	k := 0
	for o := range t.shape[0] {
		for i := range t.shape[1] {
			f(k, t.off+o*t.ostride+i*t.istride)
			k++
		}
	}
}

// tensorEntry is a tensor's entry in a safetensors header.
type tensorEntry struct {
	DType       string  `json:"dtype"`
	Shape       []int   `json:"shape"`
	DataOffsets []int64 `json:"data_offsets"`
}

// Marshal encodes n and m as a safetensors file
// (https://huggingface.co/docs/safetensors): an 8-byte little-endian
// header length N, N bytes of JSON header (padded with spaces to a
// multiple of 8) and the float32 little-endian data of the tensors in name
// order. The header's "__metadata__" holds "format" (Format), "rules",
// "arch" (JSON), "version", "created" (RFC 3339, if set), "training" and
// "eval" (JSON, if set) and "data_sha256" (hex sha256 of the data). m's
// Rules and Arch are taken from n. It fails only if m.Training or m.Eval
// is set but not JSON.
func Marshal(n *Net, m Meta) ([]byte, error) {
	if n == nil {
		return nil, fmt.Errorf("%w: no network to marshal", ErrArch)
	}
	arch, err := json.Marshal(n.arch)
	if err != nil {
		return nil, fmt.Errorf("nn: encoding arch: %w", err)
	}
	meta := map[string]string{
		"format":  Format,
		"rules":   n.arch.Rules,
		"arch":    string(arch),
		"version": m.Version,
	}
	if !m.Created.IsZero() {
		meta["created"] = m.Created.Format(time.RFC3339Nano)
	}
	for key, raw := range map[string]json.RawMessage{"training": m.Training, "eval": m.Eval} {
		if len(raw) == 0 {
			continue
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return nil, fmt.Errorf("%w: metadata %q is not JSON: %w", ErrCorrupt, key, err)
		}
		meta[key] = buf.String()
	}

	ts := n.tensors()
	header := map[string]any{}
	var data []byte
	for _, t := range ts {
		b := int64(len(data))
		t.each(func(_, param int) {
			data = binary.LittleEndian.AppendUint32(data, math.Float32bits(n.p[param]))
		})
		header[t.name] = tensorEntry{DType: "F32", Shape: t.shape, DataOffsets: []int64{b, int64(len(data))}}
	}
	sum := sha256.Sum256(data)
	meta["data_sha256"] = hex.EncodeToString(sum[:])
	header["__metadata__"] = meta
	h, err := json.Marshal(header)
	if err != nil {
		return nil, fmt.Errorf("nn: encoding header: %w", err)
	}
	for len(h)%8 != 0 {
		h = append(h, ' ')
	}
	out := binary.LittleEndian.AppendUint64(make([]byte, 0, 8+len(h)+len(data)), uint64(len(h)))
	out = append(out, h...)
	return append(out, data...), nil
}

// Unmarshal decodes and validates a weights file: the header's size and
// JSON, the metadata, the tensors' names, dtypes and shapes against the
// architecture, their offsets (contiguous, in bounds, nothing after
// them), the data's sha256 and that every value is finite. Errors wrap
// ErrCorrupt (the file is damaged or not a weights file) or ErrMismatch
// (a sound file that is not for this package's networks) and say what
// was wrong and what is allowed.
func Unmarshal(data []byte) (*Net, Meta, error) {
	if len(data) < 8 {
		return nil, Meta{}, fmt.Errorf("%w: %d bytes; a weights file starts with an 8-byte header length", ErrCorrupt, len(data))
	}
	hlen := binary.LittleEndian.Uint64(data)
	if hlen > maxHeader || hlen > uint64(len(data)-8) {
		return nil, Meta{}, fmt.Errorf("%w: header length %d in a file of %d bytes; it must fit in the file and be at most %d", ErrCorrupt, hlen, len(data), maxHeader)
	}
	header, body := data[8:8+hlen], data[8+hlen:]
	fields, err := parseHeader(header)
	if err != nil {
		return nil, Meta{}, err
	}
	m, s, err := parseMeta(fields)
	if err != nil {
		return nil, Meta{}, err
	}
	if err := checkTensors(fields, s, len(body)); err != nil {
		return nil, Meta{}, err
	}
	sum := sha256.Sum256(body)
	if got := hex.EncodeToString(sum[:]); got != m.sum {
		return nil, Meta{}, fmt.Errorf("%w: data sha256 is %s, the header says %s", ErrCorrupt, got, m.sum)
	}
	p := make([]float32, s.params)
	for _, t := range s.tensors() {
		var e tensorEntry
		_ = json.Unmarshal(fields[t.name], &e) // checked by checkTensors
		raw := body[e.DataOffsets[0]:e.DataOffsets[1]]
		var bad error
		t.each(func(k, param int) {
			v := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*k:]))
			if bad == nil && !finite(v) {
				bad = fmt.Errorf("%w: %s[%d] is %g; weights must be finite", ErrCorrupt, t.name, k, v)
			}
			p[param] = v
		})
		if bad != nil {
			return nil, Meta{}, bad
		}
	}
	return newNet(s, p), m.Meta, nil
}

// UnmarshalFor is Unmarshal that also requires the file to be for rules;
// otherwise it fails with ErrMismatch naming both.
func UnmarshalFor(data []byte, rules game.Rules) (*Net, Meta, error) {
	n, m, err := Unmarshal(data)
	if err != nil {
		return nil, Meta{}, err
	}
	if !n.rules.Equal(rules) {
		return nil, Meta{}, fmt.Errorf("%w: the file is for %s, not %s", ErrMismatch, n.rules, rules)
	}
	return n, m, nil
}

// parseHeader splits the header's JSON object into its fields, refusing
// anything but one object with distinct keys.
func parseHeader(h []byte) (map[string]json.RawMessage, error) {
	if len(h) == 0 || h[0] != '{' {
		return nil, fmt.Errorf("%w: the header does not start with '{'; it must be a JSON object", ErrCorrupt)
	}
	dec := json.NewDecoder(bytes.NewReader(h))
	dec.UseNumber()
	fields := map[string]json.RawMessage{}
	bad := func(err error) error {
		return fmt.Errorf("%w: header is not a JSON object: %w", ErrCorrupt, err)
	}
	if _, err := dec.Token(); err != nil {
		return nil, bad(err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, bad(err)
		}
		key, _ := tok.(string)
		if _, dup := fields[key]; dup {
			return nil, fmt.Errorf("%w: header names %q twice; names must be distinct", ErrCorrupt, key)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, bad(err)
		}
		fields[key] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, bad(err)
	}
	if rest := bytes.TrimRight(h[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return nil, fmt.Errorf("%w: %d bytes after the header's JSON object; only space padding is allowed", ErrCorrupt, len(rest))
	}
	return fields, nil
}

// fileMeta is the metadata and the data checksum the header claims.
type fileMeta struct {
	Meta
	sum string
}

// parseMeta reads and checks the header's "__metadata__" and returns it
// with the shape of the network it describes.
func parseMeta(fields map[string]json.RawMessage) (fileMeta, *shape, error) {
	raw, ok := fields["__metadata__"]
	if !ok {
		return fileMeta{}, nil, fmt.Errorf("%w: no __metadata__ in the header; a %s file has one", ErrMismatch, Format)
	}
	var md map[string]string
	if err := json.Unmarshal(raw, &md); err != nil {
		return fileMeta{}, nil, fmt.Errorf("%w: __metadata__ is not an object of strings: %w", ErrCorrupt, err)
	}
	if f := md["format"]; f != Format {
		return fileMeta{}, nil, fmt.Errorf("%w: format %q; this build reads %q", ErrMismatch, f, Format)
	}
	var a Arch
	dec := json.NewDecoder(strings.NewReader(md["arch"]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil || dec.More() {
		return fileMeta{}, nil, fmt.Errorf("%w: metadata arch %q is not an architecture like {\"rules\":\"3x3k3\",\"hidden\":[64,64]}: %v", ErrCorrupt, md["arch"], err)
	}
	s, err := newShape(a)
	if err != nil {
		return fileMeta{}, nil, fmt.Errorf("%w: metadata arch: %w", ErrCorrupt, err)
	}
	r, err := game.ParseRules(md["rules"])
	if err != nil {
		return fileMeta{}, nil, fmt.Errorf("%w: metadata rules: %w", ErrCorrupt, err)
	}
	if !r.Equal(s.rules) {
		return fileMeta{}, nil, fmt.Errorf("%w: metadata rules %s but arch rules %s; they must agree", ErrCorrupt, r, s.rules)
	}
	m := fileMeta{Meta: Meta{Rules: s.arch.Rules, Arch: Arch{Rules: s.arch.Rules, Hidden: slices.Clone(s.arch.Hidden)}, Version: md["version"]}, sum: md["data_sha256"]}
	if c, ok := md["created"]; ok {
		if m.Created, err = time.Parse(time.RFC3339Nano, c); err != nil {
			return fileMeta{}, nil, fmt.Errorf("%w: metadata created %q is not an RFC 3339 time: %w", ErrCorrupt, c, err)
		}
	}
	for key, dst := range map[string]*json.RawMessage{"training": &m.Training, "eval": &m.Eval} {
		if v, ok := md[key]; ok {
			if !json.Valid([]byte(v)) {
				return fileMeta{}, nil, fmt.Errorf("%w: metadata %s is not JSON", ErrCorrupt, key)
			}
			*dst = json.RawMessage(v)
		}
	}
	if len(m.sum) != 2*sha256.Size || strings.ToLower(m.sum) != m.sum {
		return fileMeta{}, nil, fmt.Errorf("%w: metadata data_sha256 %q; it must be 64 lower-case hex digits", ErrCorrupt, m.sum)
	}
	if _, err := hex.DecodeString(m.sum); err != nil {
		return fileMeta{}, nil, fmt.Errorf("%w: metadata data_sha256 %q; it must be 64 lower-case hex digits", ErrCorrupt, m.sum)
	}
	return m, s, nil
}

// checkTensors checks the header's tensors against s: the same names,
// dtype F32, the shapes of s, and offsets that tile a data section of
// size bytes exactly.
func checkTensors(fields map[string]json.RawMessage, s *shape, size int) error {
	ts := s.tensors()
	want := map[string]bool{"__metadata__": true}
	for _, t := range ts {
		want[t.name] = true
	}
	for name := range fields {
		if !want[name] {
			return fmt.Errorf("%w: unexpected tensor %q; a %s network has %s", ErrMismatch, name, s.arch.Rules, tensorNames(ts))
		}
	}
	type span struct {
		b, e int64
		name string
	}
	var spans []span
	for _, t := range ts {
		raw, ok := fields[t.name]
		if !ok {
			return fmt.Errorf("%w: no tensor %q; a %s network has %s", ErrMismatch, t.name, s.arch.Rules, tensorNames(ts))
		}
		var e tensorEntry
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			return fmt.Errorf("%w: tensor %q: %w; an entry is {\"dtype\":...,\"shape\":[...],\"data_offsets\":[begin,end]}", ErrCorrupt, t.name, err)
		}
		if e.DType != "F32" {
			return fmt.Errorf("%w: tensor %q has dtype %q; only F32 is read", ErrMismatch, t.name, e.DType)
		}
		if !slices.Equal(e.Shape, t.shape) {
			return fmt.Errorf("%w: tensor %q has shape %v; architecture %v needs %v", ErrMismatch, t.name, e.Shape, s.arch.Hidden, t.shape)
		}
		if len(e.DataOffsets) != 2 || e.DataOffsets[0] < 0 || e.DataOffsets[1] < e.DataOffsets[0] {
			return fmt.Errorf("%w: tensor %q has data_offsets %v; they must be [begin, end] with 0 <= begin <= end", ErrCorrupt, t.name, e.DataOffsets)
		}
		if n := e.DataOffsets[1] - e.DataOffsets[0]; n != int64(4*t.size()) {
			return fmt.Errorf("%w: tensor %q spans %d bytes; its shape %v needs %d", ErrCorrupt, t.name, n, t.shape, 4*t.size())
		}
		spans = append(spans, span{e.DataOffsets[0], e.DataOffsets[1], t.name})
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.b, b.b) })
	at := int64(0)
	for _, sp := range spans {
		if sp.b != at {
			return fmt.Errorf("%w: tensor %q starts at data byte %d, not %d; tensors must follow each other without gaps or overlaps", ErrCorrupt, sp.name, sp.b, at)
		}
		at = sp.e
	}
	if at != int64(size) {
		return fmt.Errorf("%w: the tensors take %d data bytes but %d follow the header; there must be nothing else", ErrCorrupt, at, size)
	}
	return nil
}

// tensorNames lists the names of ts for error messages.
func tensorNames(ts []tensor) string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.name
	}
	return strings.Join(names, ", ")
}
