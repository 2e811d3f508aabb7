package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/tttbot/ttt-bot/ai/nn"
)

// progressBar draws the progress of a training run on a writer (stderr).
// On a terminal it redraws one line with \r; otherwise (a log file, a
// pipe, CI) it writes a line when a stage starts, every tenth of the
// epochs, and at the end of each stage, so a log stays short.
type progressBar struct {
	w        io.Writer
	terminal bool
	now      func() time.Time
	prefix   string // "3x3k3 " when several rules share the bar

	stage    string    // the stage being drawn
	started  time.Time // when it started
	lastDraw time.Time // when the terminal line was last drawn
	drawn    int       // the length of the terminal line, to blank it
	every    int       // epochs between lines when not a terminal
}

// newProgressBar returns a bar on w, redrawing in place if w is a
// terminal.
func newProgressBar(w io.Writer, now func() time.Time) *progressBar {
	return &progressBar{w: w, terminal: isTerminal(w), now: now}
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// update shows stage's progress: done of total items, or an epoch.
func (b *progressBar) update(stage string, done, total int, ep *nn.Epoch) {
	now := b.now()
	if ep != nil {
		done, total = ep.N, ep.Of
	}
	if stage != b.stage {
		b.finish()
		b.stage, b.started = stage, now
		b.every = 0
		if !b.terminal {
			fmt.Fprintf(b.w, "%s%s...\n", b.prefix, stage)
		}
	}
	line := b.line(stage, done, total, ep, now)
	if b.terminal {
		// Redraw at most 20 times a second, and always at the end.
		if now.Sub(b.lastDraw) < 50*time.Millisecond && done < total {
			return
		}
		b.lastDraw = now
		pad := ""
		if n := len(line); n < b.drawn {
			pad = strings.Repeat(" ", b.drawn-n)
		}
		fmt.Fprintf(b.w, "\r%s%s", line, pad)
		b.drawn = len(line)
		return
	}
	if ep == nil {
		return // the stage's start and end lines are enough
	}
	if b.every == 0 {
		b.every = max(1, ep.Of/10)
	}
	if ep.N == 1 || ep.N%b.every == 0 || ep.N == ep.Of {
		fmt.Fprintln(b.w, line)
	}
}

// line formats one progress line.
func (b *progressBar) line(stage string, done, total int, ep *nn.Epoch, now time.Time) string {
	var s strings.Builder
	s.WriteString(b.prefix + stage + " ")
	if total > 0 {
		const width = 20
		filled := min(width, done*width/total)
		fmt.Fprintf(&s, "[%s%s] %d/%d", strings.Repeat("=", filled), strings.Repeat(" ", width-filled), done, total)
	} else if done > 0 {
		fmt.Fprintf(&s, "%d", done)
	}
	if ep != nil {
		fmt.Fprintf(&s, "  loss %.4f", ep.Loss)
		if ep.PolicyAcc >= 0 {
			fmt.Fprintf(&s, "  policy acc %.1f%%", 100*ep.PolicyAcc)
		}
		if ep.HumanAcc >= 0 {
			fmt.Fprintf(&s, "  human acc %.1f%%", 100*ep.HumanAcc)
		}
		if ep.ValidHumanAcc >= 0 {
			fmt.Fprintf(&s, " (held out %.1f%%)", 100*ep.ValidHumanAcc)
		}
	}
	fmt.Fprintf(&s, "  %s", shortDuration(now.Sub(b.started)))
	return s.String()
}

// finish ends the stage being drawn: the terminal line is kept (a newline
// after it), and a log gets the stage's time.
func (b *progressBar) finish() {
	if b.stage == "" {
		return
	}
	if b.terminal {
		if b.drawn > 0 {
			fmt.Fprintln(b.w)
		}
	} else {
		fmt.Fprintf(b.w, "%s%s done in %s\n", b.prefix, b.stage, shortDuration(b.now().Sub(b.started)))
	}
	b.stage, b.drawn = "", 0
}
