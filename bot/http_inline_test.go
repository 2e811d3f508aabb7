package bot

import (
	"io"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
)

// TestRewindable: a retried request sends its files whole again (an edit
// retried after Unknown Webhook uploaded an empty review chart).
func TestRewindable(t *testing.T) {
	files := []*discordgo.File{{Name: "a.png", Reader: strings.NewReader("PNGDATA")}, nil, {Name: "b"}}
	rewind, err := rewindable(files)
	if err != nil {
		t.Fatal(err)
	}
	for try := range 3 {
		rewind()
		b, err := io.ReadAll(files[0].Reader)
		if err != nil || string(b) != "PNGDATA" {
			t.Fatalf("try %d read %q %v", try, b, err)
		}
	}
}
