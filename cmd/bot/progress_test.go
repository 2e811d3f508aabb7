package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/ai/nn"
)

// stepClock returns a clock that moves on by step at every reading.
func stepClock(step time.Duration) func() time.Time {
	t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return func() time.Time { t = t.Add(step); return t }
}

// feed sends a run's progress to b: a stage without counts, one with
// counts, and 20 epochs.
func feed(b *progressBar) {
	b.update("positions", 0, 0, nil)
	for i := 1; i <= 3; i++ {
		b.update("targets", i, 3, nil)
	}
	for i := 1; i <= 20; i++ {
		b.update("training", 0, 0, &nn.Epoch{N: i, Of: 20, Loss: 1 / float64(i), PolicyAcc: float64(i) / 20, HumanAcc: -1, ValidHumanAcc: -1})
	}
	b.finish()
}

func TestProgressBarLog(t *testing.T) {
	var out bytes.Buffer
	b := newProgressBar(&out, stepClock(10*time.Millisecond))
	feed(b)
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := []string{
		"positions...",
		"positions done in 20ms",
		"targets...",
		"targets done in 50ms",
		"training...",
		"training [=                   ] 1/20  loss 1.0000  policy acc 5.0%  0s",
		"training [==                  ] 2/20  loss 0.5000  policy acc 10.0%  20ms",
	}
	for i, w := range want {
		if i >= len(lines) || lines[i] != w {
			t.Fatalf("line %d:\n%s\nwant %q", i, out.String(), w)
		}
	}
	// One line every 2 epochs (a tenth of 20), the first and the last.
	if n := strings.Count(out.String(), "training ["); n != 11 {
		t.Errorf("%d epoch lines, want 11:\n%s", n, out.String())
	}
	if !strings.HasSuffix(out.String(), "training [====================] 20/20  loss 0.0500  policy acc 100.0%  200ms\ntraining done in 210ms\n") {
		t.Errorf("end:\n%s", out.String())
	}
	if strings.Contains(out.String(), "\r") || strings.Contains(out.String(), "human acc") {
		t.Errorf("carriage return or absent head in a log:\n%s", out.String())
	}
}

func TestProgressBarTerminal(t *testing.T) {
	var out bytes.Buffer
	b := newProgressBar(&out, stepClock(30*time.Millisecond))
	b.terminal = true
	feed(b)
	s := out.String()
	// Redrawn in place: one line per stage, each ended once.
	if n := strings.Count(s, "\n"); n != 3 {
		t.Errorf("%d newlines, want 3 (one per stage):\n%q", n, s)
	}
	last := s[strings.LastIndex(s, "\r")+1:]
	if !strings.HasPrefix(last, "training [====================] 20/20  loss 0.0500") {
		t.Errorf("last drawn %q", last)
	}
	// Throttled: at most one redraw per 50ms, but always the last epoch.
	if n := strings.Count(s, "\rtraining"); n >= 20 || n < 5 {
		t.Errorf("%d redraws of 20 epochs:\n%q", n, s)
	}
	// A shorter line blanks the rest of a longer one.
	for _, seg := range strings.Split(s, "\r")[1:] {
		if strings.HasPrefix(seg, "training [") && strings.Contains(seg, "1/20") && strings.HasSuffix(seg, " ") {
			t.Errorf("padding on the first line of a stage: %q", seg)
		}
	}
}
