package fakediscord

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestValidateMessage(t *testing.T) {
	button := func(id string) string { return `{"type":2,"style":1,"label":"x","custom_id":"` + id + `"}` }
	row := func(n int, prefix string) string {
		var bs []string
		for i := 0; i < n; i++ {
			bs = append(bs, button(prefix+string(rune('a'+i))))
		}
		return `{"type":1,"components":[` + strings.Join(bs, ",") + `]}`
	}
	rows := func(n int) string {
		var rs []string
		for i := 0; i < n; i++ {
			rs = append(rs, row(5, string(rune('a'+i))))
		}
		return `[` + strings.Join(rs, ",") + `]`
	}
	tests := []struct {
		name, body string
		create     bool
		code       int // 0: valid
	}{
		{"content", `{"content":"hi"}`, true, 0},
		{"empty create", `{"content":""}`, true, CodeEmptyMessage},
		{"empty edit", `{}`, false, 0},
		{"25 buttons", `{"components":` + rows(5) + `}`, true, 0},
		{"6 rows", `{"components":` + rows(6) + `}`, true, CodeInvalidFormBody},
		{"6 buttons", `{"components":[` + row(6, "p") + `]}`, true, CodeInvalidFormBody},
		{"empty row", `{"components":[{"type":1,"components":[]}]}`, true, CodeInvalidFormBody},
		{"button outside a row", `{"components":[` + button("a") + `]}`, true, CodeInvalidFormBody},
		{"custom id 100", `{"components":[{"type":1,"components":[` + button(strings.Repeat("i", 100)) + `]}]}`, true, 0},
		{"custom id 101", `{"components":[{"type":1,"components":[` + button(strings.Repeat("i", 101)) + `]}]}`, true, CodeInvalidFormBody},
		{"no custom id", `{"components":[{"type":1,"components":[{"type":2,"style":1,"label":"x"}]}]}`, true, CodeInvalidFormBody},
		{"link button", `{"components":[{"type":1,"components":[{"type":2,"style":5,"label":"x","url":"https://x"}]}]}`, true, 0},
		{"select with a button", `{"components":[{"type":1,"components":[{"type":3,"custom_id":"s","options":[]},` + button("b") + `]}]}`, true, CodeInvalidFormBody},
		{"label 81", `{"components":[{"type":1,"components":[{"type":2,"style":1,"custom_id":"a","label":"` + strings.Repeat("l", 81) + `"}]}]}`, true, CodeInvalidFormBody},
		{"11 embeds", `{"embeds":[{},{},{},{},{},{},{},{},{},{},{}]}`, true, CodeInvalidFormBody},
		{"bad flags", `{"content":"x","flags":2}`, true, CodeInvalidFormBody},
		{"ephemeral", `{"content":"x","flags":64}`, true, 0},
		{"2000 runes", `{"content":"` + strings.Repeat("ü", 2000) + `"}`, true, 0},
		{"2001 runes", `{"content":"` + strings.Repeat("ü", 2001) + `"}`, true, CodeInvalidFormBody},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p messagePayload
			if err := json.Unmarshal([]byte(tc.body), &p); err != nil {
				t.Fatal(err)
			}
			e := validateMessage(&p, tc.create)
			switch {
			case tc.code == 0 && e != nil:
				t.Fatalf("rejected: %v %v", e, e.Errors)
			case tc.code != 0 && (e == nil || e.Code != tc.code):
				t.Fatalf("got %v, want code %d", e, tc.code)
			}
		})
	}
}

func TestFormErrorShape(t *testing.T) {
	b, err := json.Marshal(formError("components.0.components.5", "X", "m"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"code":50035,"message":"Invalid Form Body","errors":{"components":{"0":{"components":{"5":{"_errors":[{"code":"X","message":"m"}]}}}}}}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
}

// FuzzMessagePayload checks that no request body makes the validator panic.
func FuzzMessagePayload(f *testing.F) {
	f.Add([]byte(`{"content":"x","components":[{"type":1,"components":[{"type":2,"style":1,"custom_id":"a","label":"b"}]}]}`))
	f.Add([]byte(`{"components":[{"type":1}],"embeds":null,"flags":64}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var p messagePayload
		if json.Unmarshal(body, &p) != nil {
			return
		}
		for _, create := range []bool{true, false} {
			if e := validateMessage(&p, create); e != nil && e.Status != 400 {
				t.Fatalf("status %d for %s", e.Status, body)
			}
		}
		_ = validateModal(&p)
	})
}
