package persistence

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
)

// corpusMaxLine bounds one line of an import; longer lines are reported and
// skipped.
const corpusMaxLine = 1 << 20

// LineError is a line of an import that was skipped, with the reason.
type LineError struct {
	// Line is the 1-based line number.
	Line int
	// Err says what was wrong.
	Err error
}

// Error returns "line N: reason".
func (e LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// Unwrap returns the reason.
func (e LineError) Unwrap() error { return e.Err }

// ImportReport says what an import did. Bad lines never abort an import;
// they are listed here.
type ImportReport struct {
	// Added is the number of records appended.
	Added int
	// Duplicates is the number of records whose game was already in the
	// corpus (an import run twice adds nothing the second time).
	Duplicates int
	// Bad are the lines skipped, in order.
	Bad []LineError
}

// ExportReport says what an export wrote.
type ExportReport struct {
	// Records is the number of lines written.
	Records int
	// Last is the stream ID of the last entry read.
	Last string
	// Corrupt are the entries skipped because they do not decode.
	Corrupt []CorruptEntry
}

// ExportCorpus writes the rules' corpus to w as JSON Lines, one
// CorpusRecord per line in stream order, skipping (and reporting) corrupt
// entries.
func (s *Store) ExportCorpus(ctx context.Context, w io.Writer, rules string) (ExportReport, error) {
	var rep ExportReport
	bw := bufio.NewWriter(w)
	last, err := s.ScanCorpus(ctx, rules, "0", func(e CorpusEntry) error {
		line, err := e.Record.MarshalLine()
		if err != nil {
			return err
		}
		if _, err := bw.Write(line); err != nil {
			return fmt.Errorf("persistence: exporting the %s corpus: %w", rules, err)
		}
		rep.Records++
		return nil
	}, func(c CorruptEntry) { rep.Corrupt = append(rep.Corrupt, c) })
	rep.Last = last
	if err != nil {
		return rep, err
	}
	if err := bw.Flush(); err != nil {
		return rep, fmt.Errorf("persistence: exporting the %s corpus: %w", rules, err)
	}
	return rep, nil
}

// ImportCorpus reads JSON Lines (as ExportCorpus writes them) from r and
// appends every valid record to its rules' corpus, exactly once per game
// ID. Blank lines are ignored; bad lines are reported in the ImportReport
// and skipped. Records keep their time; their stream IDs (and so age
// trimming) take the import time. It returns an error only when reading r
// or Redis fails.
func (s *Store) ImportCorpus(ctx context.Context, r io.Reader) (ImportReport, error) {
	var rep ImportReport
	err := corpusEachLine(r, func(n int, line []byte, tooLong bool) error {
		if tooLong {
			rep.Bad = append(rep.Bad, LineError{n, fmt.Errorf("%w: longer than %d bytes", ErrInvalid, corpusMaxLine)})
			return nil
		}
		if len(corpusTrimSpace(line)) == 0 {
			return nil
		}
		rec, err := DecodeCorpusRecord(line)
		if err != nil {
			rep.Bad = append(rep.Bad, LineError{n, err})
			return nil
		}
		_, added, err := s.AppendRecord(ctx, rec)
		switch {
		case err != nil:
			return err
		case added:
			rep.Added++
		default:
			rep.Duplicates++
		}
		return nil
	})
	return rep, err
}

// corpusEachLine calls fn with every line of r (without its line ending) and its
// 1-based number. A line longer than corpusMaxLine is passed empty with tooLong
// set. It stops at the first error from fn.
func corpusEachLine(r io.Reader, fn func(n int, line []byte, tooLong bool) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	n := 0
	for {
		buf = buf[:0]
		tooLong := false
		var err error
		for {
			var chunk []byte
			var more bool
			chunk, more, err = br.ReadLine()
			if !tooLong {
				buf = append(buf, chunk...)
				if len(buf) > corpusMaxLine {
					tooLong, buf = true, buf[:0]
				}
			}
			if err != nil || !more {
				break
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("persistence: reading import line %d: %w", n+1, err)
		}
		n++
		if err := fn(n, buf, tooLong); err != nil {
			return err
		}
	}
}

// corpusTrimSpace trims ASCII space, tabs and carriage returns.
func corpusTrimSpace(b []byte) []byte {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}
