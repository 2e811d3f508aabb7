package persistence_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

func TestGuildSettings(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	s := e.store
	if m, err := s.GuildSettings(ctx, "G"); err != nil || len(m) != 0 {
		t.Fatalf("settings of a new guild: %v %v", m, err)
	}
	steps := []struct {
		name, value string
		want        map[string]string
	}{
		{"hints", "off", map[string]string{"hints": "off"}},
		{"turn-time", "2m", map[string]string{"hints": "off", "turn-time": "2m"}},
		{"hints", "on", map[string]string{"hints": "on", "turn-time": "2m"}},
		{"turn-time", "", map[string]string{"hints": "on"}}, // back to the default
	}
	for i, st := range steps {
		if err := s.SetGuildSetting(ctx, "G", st.name, st.value, persistence.AuditEntry{User: "1", Action: "set", Detail: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
		got, err := s.GuildSettings(ctx, "G")
		if err != nil || !reflect.DeepEqual(got, st.want) {
			t.Fatalf("step %d: %v %v, want %v", i, got, err, st.want)
		}
	}
	if m, _ := s.GuildSettings(ctx, "H"); len(m) != 0 {
		t.Fatalf("another guild sees %v", m)
	}
	log, err := s.AuditLog(ctx, "G", 25)
	if err != nil || len(log) != len(steps) || log[0].Detail != "3" || log[3].Detail != "0" || log[0].User != "1" || log[0].Time.IsZero() {
		t.Fatalf("audit log %+v %v, want the %d changes newest first", log, err, len(steps))
	}
	for _, bad := range []struct{ guild, name string }{{"", "hints"}, {"G", ""}} {
		if err := s.SetGuildSetting(ctx, bad.guild, bad.name, "x", persistence.AuditEntry{Action: "set"}); !errors.Is(err, persistence.ErrInvalid) {
			t.Errorf("SetGuildSetting(%q, %q) = %v, want ErrInvalid", bad.guild, bad.name, err)
		}
	}
}

func TestAuditLogBoundAndCorrupt(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	for i := range persistence.AuditLogLen + 10 {
		if err := e.store.Audit(ctx, "G", persistence.AuditEntry{User: "1", Action: "end-game", Detail: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if n := e.rdb.LLen(ctx, "ttt:settings:{g:G}:audit").Val(); n != persistence.AuditLogLen {
		t.Fatalf("audit log holds %d entries, want %d", n, persistence.AuditLogLen)
	}
	e.rdb.LPush(ctx, "ttt:settings:{g:G}:audit", "{not json")
	log, err := e.store.AuditLog(ctx, "G", 25)
	var ce *persistence.CorruptAuditError
	if !errors.As(err, &ce) || ce.Skipped != 1 || !errors.Is(err, persistence.ErrCorrupt) {
		t.Fatalf("AuditLog error %v, want one corrupt entry reported", err)
	}
	if len(log) != 24 || log[0].Detail != fmt.Sprint(persistence.AuditLogLen+9) {
		t.Fatalf("AuditLog gave %d entries starting %+v", len(log), log[0])
	}
}

// TestSubscribeSettings: a change made through one Store reaches another
// Store's subscribers.
func TestSubscribeSettings(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	ch, err := e.another(t).SubscribeSettings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	next := func() persistence.SettingsEvent {
		t.Helper()
		select {
		case ev := <-ch:
			return ev
		case <-time.After(5 * time.Second):
			t.Fatal("no settings event")
		}
		return persistence.SettingsEvent{}
	}
	if err := e.store.SetGuildSetting(ctx, "G", "rated", "off", persistence.AuditEntry{User: "1", Action: "set"}); err != nil {
		t.Fatal(err)
	}
	if ev := next(); ev.Guild != "G" {
		t.Fatalf("event %+v, want guild G", ev)
	}
	if err := e.store.DeleteGuildSettings(ctx, "G"); err != nil {
		t.Fatal(err)
	}
	if ev := next(); ev.Guild != "G" {
		t.Fatalf("event %+v after the deletion, want guild G", ev)
	}
	if m, _ := e.store.GuildSettings(ctx, "G"); len(m) != 0 {
		t.Fatalf("settings after deletion: %v", m)
	}
}

// TestRecordResultUnrated: a game between people in a server that turned
// rated games off counts in the results but moves no rating.
func TestRecordResultUnrated(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	g := corpusGame(t, "u1", "G", "100", "200")
	g.Unrated = true
	if counted, err := e.store.RecordResult(ctx, g); err != nil || !counted {
		t.Fatalf("RecordResult = %v, %v", counted, err)
	}
	for _, guild := range []string{"G", ""} {
		st, err := e.store.Stats(ctx, guild, "100")
		if err != nil || st.Games != 1 || st.Wins != 1 || st.Rated != 0 || st.Rating != persistence.RatingStart {
			t.Fatalf("stats in %q: %+v %v, want one win, unrated", guild, st, err)
		}
		if places, err := e.store.Leaderboard(ctx, guild, 0, 10); err != nil || len(places) != 0 {
			t.Fatalf("leaderboard in %q: %v %v, want empty", guild, places, err)
		}
	}
	// A rated game after it starts the rating from the start value.
	g2 := corpusGame(t, "u2", "G", "100", "200")
	if _, err := e.store.RecordResult(ctx, g2); err != nil {
		t.Fatal(err)
	}
	if st, _ := e.store.Stats(ctx, "G", "100"); st.Rated != 1 || st.Games != 2 || st.Rating <= persistence.RatingStart {
		t.Fatalf("after a rated win: %+v", st)
	}
}

// TestChallengeExpiry: a challenge waits its own Expiry when it has one
// (a server's setting), else the Store's ChallengeTTL; both are kept.
func TestChallengeExpiry(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	for _, tc := range []struct {
		expiry, want time.Duration
	}{{0, 5 * time.Minute}, {90 * time.Second, 90 * time.Second}, {1000 * time.Hour, 24 * time.Hour}} {
		s, err := e.store.CreateGame(ctx, "55", persistence.Session{Rules: "3x3k3", Challenger: game.X,
			Players: [2]persistence.Seat{{User: "1"}, {}}, Status: persistence.StatusOpen, Expiry: tc.expiry})
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Deadline.Sub(s.Created); got != tc.want {
			t.Errorf("expiry %s: deadline %s after creation, want %s", tc.expiry, got, tc.want)
		}
		back, err := e.store.Game(ctx, s.ID)
		if err != nil || back.Expiry != tc.expiry || !back.Deadline.Equal(s.Deadline) {
			t.Errorf("reloaded: %+v %v", back, err)
		}
		if _, err := e.store.Decline(ctx, s.ID, 0, "1"); err != nil {
			t.Fatal(err)
		}
	}
}

// TestThrottle: an action runs at most once in its window, across Stores.
func TestThrottle(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	now := e.clk.Now()
	ok, until, err := e.store.Throttle(ctx, "forget-me:1", time.Minute, now)
	if err != nil || !ok || !until.Equal(now.Add(time.Minute).Truncate(time.Millisecond)) {
		t.Fatalf("first: %v %v %v", ok, until, err)
	}
	if ok, until2, err := e.another(t).Throttle(ctx, "forget-me:1", time.Minute, now.Add(30*time.Second)); err != nil || ok || !until2.Equal(until) {
		t.Fatalf("within the window, from another Store: %v %v %v, want refused until %v", ok, until2, err, until)
	}
	if ok, _, err := e.store.Throttle(ctx, "forget-me:2", time.Minute, now); err != nil || !ok {
		t.Fatalf("another name: %v %v", ok, err)
	}
	if ok, _, err := e.store.Throttle(ctx, "forget-me:1", time.Minute, now.Add(61*time.Second)); err != nil || !ok {
		t.Fatalf("after the window: %v %v", ok, err)
	}
	if ok, _, err := e.store.Throttle(ctx, "x", 0, now); err != nil || !ok {
		t.Fatalf("no window: %v %v", ok, err)
	}
}
