package nn

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game"
)

// testMeta is metadata with every field set.
func testMeta() Meta {
	return Meta{
		Version:  "test-1",
		Created:  time.Date(2026, 11, 21, 20, 0, 0, 123, time.UTC),
		Training: json.RawMessage(`{"games": 12, "seed": 3}`),
		Eval:     json.RawMessage(`{"optimal":"4520/4520"}`),
	}
}

// mustMarshal marshals or fails the test.
func mustMarshal(t testing.TB, n *Net, m Meta) []byte {
	t.Helper()
	b, err := Marshal(n, m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sameMeta reports whether a and b are equal, times compared as instants.
func sameMeta(a, b Meta) bool {
	return a.Rules == b.Rules && a.Arch.Rules == b.Arch.Rules && slices.Equal(a.Arch.Hidden, b.Arch.Hidden) &&
		a.Version == b.Version && a.Created.Equal(b.Created) &&
		bytes.Equal(a.Training, b.Training) && bytes.Equal(a.Eval, b.Eval)
}

func TestMarshalRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		rules  string
		hidden []int
		meta   Meta
	}{
		{"3x3k3", []int{96, 96}, testMeta()},
		{"4x3xox", []int{7, 5, 3}, Meta{}},
		{"8x8k5", []int{256}, Meta{Version: "v"}},
	} {
		t.Run(tc.rules, func(t *testing.T) {
			n := mustNet(t, tc.rules, tc.hidden, 11)
			data := mustMarshal(t, n, tc.meta)
			hlen := binary.LittleEndian.Uint64(data)
			if hlen%8 != 0 || data[8] != '{' {
				t.Errorf("header length %d, starts with %q", hlen, data[8])
			}
			got, m, err := UnmarshalFor(data, n.Rules())
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.p, n.p) || !slices.Equal(got.empty, n.empty) || !slices.Equal(got.marks, n.marks) {
				t.Error("weights changed in the round trip")
			}
			want := tc.meta
			want.Rules, want.Arch = n.Arch().Rules, n.Arch()
			if want.Training != nil {
				want.Training = json.RawMessage(`{"games":12,"seed":3}`) // compacted
			}
			if !sameMeta(m, want) {
				t.Errorf("meta %+v, want %+v", m, want)
			}
			if again := mustMarshal(t, got, m); !bytes.Equal(again, data) {
				t.Error("re-marshalling gave other bytes")
			}
		})
	}
}

func TestMarshalBadMeta(t *testing.T) {
	n := mustNet(t, "3x3k3", []int{4}, 1)
	if _, err := Marshal(n, Meta{Training: json.RawMessage("{")}); err == nil {
		t.Error("Marshal accepted training metadata that is not JSON")
	}
	if _, err := Marshal(nil, Meta{}); err == nil {
		t.Error("Marshal accepted a nil network")
	}
}

// splitFile returns a weights file's header as generic JSON and its data.
func splitFile(t testing.TB, data []byte) (map[string]any, []byte) {
	t.Helper()
	hlen := binary.LittleEndian.Uint64(data)
	var h map[string]any
	if err := json.Unmarshal(data[8:8+hlen], &h); err != nil {
		t.Fatal(err)
	}
	return h, data[8+hlen:]
}

// joinFile assembles a weights file, setting data_sha256 to the data's
// checksum unless keepSum.
func joinFile(t testing.TB, h map[string]any, data []byte, keepSum bool) []byte {
	t.Helper()
	if md, ok := h["__metadata__"].(map[string]any); ok && !keepSum {
		sum := sha256.Sum256(data)
		md["data_sha256"] = hex.EncodeToString(sum[:])
	}
	hb, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	return joinRaw(hb, data)
}

// joinRaw assembles a weights file from raw header bytes and data.
func joinRaw(header, data []byte) []byte {
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	return append(append(out, header...), data...)
}

func TestUnmarshalRefusesCorruption(t *testing.T) {
	n := mustNet(t, "3x3k3", []int{6, 5}, 2)
	good := mustMarshal(t, n, testMeta())
	edit := func(f func(h map[string]any, md map[string]any, data []byte) []byte) []byte {
		h, data := splitFile(t, good)
		data = slices.Clone(data)
		if d := f(h, h["__metadata__"].(map[string]any), data); d != nil {
			data = d
		}
		return joinFile(t, h, data, false)
	}
	tensorEdit := func(name string, f func(e map[string]any)) []byte {
		return edit(func(h, _ map[string]any, _ []byte) []byte {
			f(h[name].(map[string]any))
			return nil
		})
	}
	nanAt := func(name string) []byte {
		return edit(func(h, _ map[string]any, data []byte) []byte {
			off := h[name].(map[string]any)["data_offsets"].([]any)
			binary.LittleEndian.PutUint32(data[int(off[0].(float64)):], math.Float32bits(float32(math.NaN())))
			return nil
		})
	}
	_, data := splitFile(t, good)
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrCorrupt},
		{"header length absurd", append(binary.LittleEndian.AppendUint64(nil, 1<<62), good[8:]...), ErrCorrupt},
		{"header length past end", append(binary.LittleEndian.AppendUint64(nil, uint64(len(good))), good[8:]...), ErrCorrupt},
		{"header not JSON", joinRaw([]byte("{nope}  "), data), ErrCorrupt},
		{"header an array", joinRaw([]byte("[1,2,3] "), data), ErrCorrupt},
		{"header trailing junk", joinRaw(append(slices.Clone(good[8:8+binary.LittleEndian.Uint64(good)]), "x"...), data), ErrCorrupt},
		{"duplicate key", joinRaw([]byte(`{"a":1,"a":2}`), data), ErrCorrupt},
		{"no metadata", edit(func(h, _ map[string]any, _ []byte) []byte { delete(h, "__metadata__"); return nil }), ErrMismatch},
		{"metadata not strings", edit(func(h, md map[string]any, _ []byte) []byte { md["version"] = 3; return nil }), ErrCorrupt},
		{"other format", edit(func(_, md map[string]any, _ []byte) []byte { md["format"] = "ttt-bot/nn/2"; return nil }), ErrMismatch},
		{"arch not JSON", edit(func(_, md map[string]any, _ []byte) []byte { md["arch"] = "[96"; return nil }), ErrCorrupt},
		{"arch unknown field", edit(func(_, md map[string]any, _ []byte) []byte {
			md["arch"] = `{"rules":"3x3k3","hidden":[6,5],"act":"relu"}`
			return nil
		}), ErrCorrupt},
		{"arch too wide", edit(func(_, md map[string]any, _ []byte) []byte {
			md["arch"] = `{"rules":"3x3k3","hidden":[6,5000]}`
			return nil
		}), ErrCorrupt},
		{"arch other shape", edit(func(_, md map[string]any, _ []byte) []byte {
			md["arch"] = `{"rules":"3x3k3","hidden":[6,6]}`
			return nil
		}), ErrMismatch},
		{"rules disagree", edit(func(_, md map[string]any, _ []byte) []byte { md["rules"] = "4x4k4"; return nil }), ErrCorrupt},
		{"bad created", edit(func(_, md map[string]any, _ []byte) []byte { md["created"] = "yesterday"; return nil }), ErrCorrupt},
		{"bad training", edit(func(_, md map[string]any, _ []byte) []byte { md["training"] = "{"; return nil }), ErrCorrupt},
		{"bad sha hex", func() []byte {
			h, d := splitFile(t, good)
			h["__metadata__"].(map[string]any)["data_sha256"] = strings.Repeat("G", 64)
			return joinFile(t, h, d, true)
		}(), ErrCorrupt},
		{"wrong dtype", tensorEdit("body.0.bias", func(e map[string]any) { e["dtype"] = "F16" }), ErrMismatch},
		{"wrong shape", tensorEdit("policy.weight", func(e map[string]any) { e["shape"] = []int{5, 9} }), ErrMismatch},
		{"unknown entry field", tensorEdit("value.bias", func(e map[string]any) { e["scale"] = 2 }), ErrCorrupt},
		{"offsets reversed", tensorEdit("value.bias", func(e map[string]any) {
			o := e["data_offsets"].([]any)
			e["data_offsets"] = []any{o[1], o[0]}
		}), ErrCorrupt},
		{"offsets overlap", tensorEdit("body.0.bias", func(e map[string]any) {
			e["data_offsets"] = []any{4, 4 + 4*6}
		}), ErrCorrupt},
		{"offsets three", tensorEdit("body.0.bias", func(e map[string]any) {
			e["data_offsets"] = []any{0, 24, 24}
		}), ErrCorrupt},
		{"missing tensor", edit(func(h, _ map[string]any, _ []byte) []byte { delete(h, "human.bias"); return nil }), ErrMismatch},
		{"extra tensor", edit(func(h, _ map[string]any, data []byte) []byte {
			h["extra"] = map[string]any{"dtype": "F32", "shape": []int{1}, "data_offsets": []int{len(data), len(data) + 4}}
			return append(data, 0, 0, 0, 0)
		}), ErrMismatch},
		{"trailing data", edit(func(_, _ map[string]any, data []byte) []byte { return append(data, 0, 0, 0, 0) }), ErrCorrupt},
		{"checksum", func() []byte {
			h, d := splitFile(t, good)
			d = slices.Clone(d)
			d[5] ^= 1
			return joinFile(t, h, d, true)
		}(), ErrCorrupt},
		{"NaN", nanAt("body.1.weight"), ErrCorrupt},
		{"Inf", edit(func(h, _ map[string]any, data []byte) []byte {
			off := h["value.bias"].(map[string]any)["data_offsets"].([]any)
			binary.LittleEndian.PutUint32(data[int(off[0].(float64)):], math.Float32bits(float32(math.Inf(-1))))
			return nil
		}), ErrCorrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Unmarshal(tc.data)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			t.Log(err)
		})
	}
}

func TestUnmarshalForOtherRules(t *testing.T) {
	n := mustNet(t, "3x3k3", []int{4}, 1)
	data := mustMarshal(t, n, Meta{})
	xox, _ := game.NewXOX(4, 3)
	_, _, err := UnmarshalFor(data, xox)
	if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), "3x3k3") || !strings.Contains(err.Error(), "4x3xox") {
		t.Errorf("error %v; want ErrMismatch naming both rules", err)
	}
}

func TestUnmarshalTruncated(t *testing.T) {
	data := mustMarshal(t, mustNet(t, "3x3k3", []int{5, 4}, 1), testMeta())
	for i := range len(data) {
		if _, _, err := Unmarshal(data[:i]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("truncated to %d of %d bytes: error %v, want ErrCorrupt", i, len(data), err)
		}
	}
}

func TestUnmarshalFlippedBytes(t *testing.T) {
	n := mustNet(t, "3x3k3", []int{5, 4}, 1)
	data := mustMarshal(t, n, Meta{Version: "v1"})
	hend := 8 + int(binary.LittleEndian.Uint64(data))
	for i := range data {
		for _, bit := range []byte{0x01, 0x20, 0x80} {
			bad := slices.Clone(data)
			bad[i] ^= bit
			got, _, err := Unmarshal(bad)
			switch {
			case i >= hend && !errors.Is(err, ErrCorrupt):
				t.Fatalf("data byte %d ^ %#x: error %v, want ErrCorrupt", i, bit, err)
			case err == nil && !slices.Equal(got.p, n.p):
				// A flip in free text (the version) may leave a sound file,
				// but never other weights.
				t.Fatalf("header byte %d ^ %#x: accepted with other weights", i, bit)
			case err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrMismatch):
				t.Fatalf("byte %d ^ %#x: error %v wraps no sentinel", i, bit, err)
			}
		}
	}
}

func FuzzUnmarshal(f *testing.F) {
	n, _ := New(Arch{Rules: "3x3k3", Hidden: []int{3}}, nil2rng())
	good, _ := Marshal(n, testMeta())
	f.Add(good)
	f.Add(good[:40])
	f.Add([]byte{})
	f.Add(joinRaw([]byte(`{"__metadata__":{"format":"ttt-bot/nn/1"}}`), nil))
	small, _ := New(Arch{Rules: "4x3xox", Hidden: []int{1}}, nil2rng())
	b, _ := Marshal(small, Meta{})
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		n, m, err := Unmarshal(data)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrMismatch) {
				t.Fatalf("error %v wraps no sentinel", err)
			}
			return
		}
		again, err := Marshal(n, m)
		if err != nil {
			t.Fatalf("accepted file does not marshal: %v", err)
		}
		n2, m2, err := Unmarshal(again)
		if err != nil {
			t.Fatalf("re-marshalled file refused: %v", err)
		}
		if !slices.Equal(n.p, n2.p) || !sameMeta(m, m2) {
			t.Fatal("re-marshalled file differs")
		}
		if third, _ := Marshal(n2, m2); !bytes.Equal(third, again) {
			t.Fatal("marshalling is not stable")
		}
	})
}
