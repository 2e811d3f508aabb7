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
	files := []*discordgo.File{{Name: "a.png", Reader: strings.NewReader("PNGDATA")}, nil, {Name: "b"},
		{Name: "c", Reader: io.MultiReader(strings.NewReader("PNG"), strings.NewReader("DATA"))}}
	rewind, err := rewindable(files)
	if err != nil {
		t.Fatal(err)
	}
	for try := range 3 {
		rewind()
		for _, f := range []*discordgo.File{files[0], files[3]} {
			b, err := io.ReadAll(f.Reader)
			if err != nil || string(b) != "PNGDATA" {
				t.Fatalf("try %d read %s: %q %v", try, f.Name, b, err)
			}
		}
	}
}
