// Package metricstest reads the Prometheus text exposition in tests:
// strictly (every line a HELP, a TYPE or a sample of the family last
// typed), so that a test of a metric also checks the format.
package metricstest

import (
	"bufio"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Sample is one parsed sample line of the text format.
type Sample struct {
	Name   string
	Labels map[string]string
	Value  float64
}

var (
	reHelp   = regexp.MustCompile(`^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$`)
	reType   = regexp.MustCompile(`^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$`)
	reSample = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)$`)
	reLabel  = regexp.MustCompile(`^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)`)
)

// Parse parses the text format strictly: every line is a HELP,
// a TYPE or a sample of the family last typed; it returns the samples and
// each family's type.
func Parse(t testing.TB, text string) ([]Sample, map[string]string) {
	t.Helper()
	var out []Sample
	types := map[string]string{}
	family := ""
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := reHelp.FindStringSubmatch(line); m != nil {
			family = m[1]
			continue
		}
		if m := reType.FindStringSubmatch(line); m != nil {
			if m[1] != family || types[m[1]] != "" {
				t.Fatalf("line %d: TYPE %s out of place", n, m[1])
			}
			types[m[1]] = m[2]
			continue
		}
		m := reSample.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("line %d: not a HELP, TYPE or sample: %q", n, line)
		}
		name := m[1]
		if base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_sum"), "_count"); name != family && !((types[family] == "histogram" || types[family] == "summary") && base == family) {
			t.Fatalf("line %d: sample %s outside its family %s", n, name, family)
		}
		labels := map[string]string{}
		if l := m[2]; l != "" {
			rest := l[1 : len(l)-1]
			for rest != "" {
				lm := reLabel.FindStringSubmatch(rest)
				if lm == nil {
					t.Fatalf("line %d: bad labels %q", n, l)
				}
				v, err := strconv.Unquote(`"` + lm[2] + `"`)
				if err != nil {
					t.Fatalf("line %d: label value %q: %v", n, lm[2], err)
				}
				labels[lm[1]] = v
				rest = rest[len(lm[0]):]
			}
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			t.Fatalf("line %d: value %q: %v", n, m[3], err)
		}
		out = append(out, Sample{Name: name, Labels: labels, Value: v})
	}
	return out, types
}

// Find returns the value of the sample with name and labels (given as
// k, v pairs) and whether it is there.
func Find(samples []Sample, name string, kv ...string) (float64, bool) {
next:
	for _, s := range samples {
		if s.Name != name || len(s.Labels) != len(kv)/2 {
			continue
		}
		for i := 0; i < len(kv); i += 2 {
			if s.Labels[kv[i]] != kv[i+1] {
				continue next
			}
		}
		return s.Value, true
	}
	return 0, false
}

// MustParse is Parse's samples.
func MustParse(t testing.TB, text string) []Sample {
	t.Helper()
	s, _ := Parse(t, text)
	return s
}
