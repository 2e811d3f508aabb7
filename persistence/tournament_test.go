package persistence_test

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/persistence"
)

func newTournament(id string, created time.Time) *persistence.Tournament {
	return &persistence.Tournament{ID: id, Guild: "G", Channel: "C", Name: "Friday " + id, Format: "swiss",
		Rules: "3x3k3", Creator: "1", Status: persistence.TournamentSignup, Created: created}
}

func TestTournamentCreateAndLoad(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	s := e.store
	tn := newTournament("t1", e.clk.Now())
	tn.Players = []persistence.Entrant{{ID: "100", Name: "alice", Rating: 1234.5}, {ID: "ai:perfect"}}
	tn.StartAt = e.clk.Now().Add(time.Hour)
	if err := s.CreateTournament(ctx, tn); err != nil || tn.Version != 1 {
		t.Fatalf("CreateTournament: %v, version %d", err, tn.Version)
	}
	got, err := s.Tournament(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != tn.Name || got.Version != 1 || len(got.Players) != 2 || got.Players[0].Rating != 1234.5 ||
		!got.StartAt.Equal(tn.StartAt) || got.Status != persistence.TournamentSignup {
		t.Fatalf("loaded %+v, want %+v", got, tn)
	}
	if err := s.CreateTournament(ctx, newTournament("t1", e.clk.Now())); !errors.Is(err, persistence.ErrTournamentExists) {
		t.Fatalf("second create of t1: %v, want ErrTournamentExists", err)
	}
	if _, err := s.Tournament(ctx, "nope"); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("unknown tournament: %v, want ErrNotFound", err)
	}
	for _, bad := range []*persistence.Tournament{{Guild: "G", Channel: "C"}, {ID: "x", Channel: "C"}, {ID: "x", Guild: "G"}} {
		if err := s.CreateTournament(ctx, bad); !errors.Is(err, persistence.ErrInvalid) {
			t.Errorf("CreateTournament(%+v) = %v, want ErrInvalid", bad, err)
		}
	}
	if err := e.rdb.HSet(ctx, "ttt:tn:{t2}", "v", "1", "d", "{not json").Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Tournament(ctx, "t2"); !errors.Is(err, persistence.ErrCorrupt) {
		t.Fatalf("corrupt record: %v, want ErrCorrupt", err)
	}
}

// TestTournamentUpdateConcurrent: many processes joining at once lose no
// join (compare-and-set with retries), and an error from the change
// stores nothing.
func TestTournamentUpdateConcurrent(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	s := e.store
	if err := s.CreateTournament(ctx, newTournament("t1", e.clk.Now())); err != nil {
		t.Fatal(err)
	}
	const n = 12
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, err := s.UpdateTournament(ctx, "t1", func(tn *persistence.Tournament) error {
				tn.Players = append(tn.Players, persistence.Entrant{ID: fmt.Sprint(100 + i)})
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, err := s.Tournament(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Players) != n || got.Version != n+1 {
		t.Fatalf("%d players at version %d, want %d at %d", len(got.Players), got.Version, n, n+1)
	}
	refuse := errors.New("full")
	if _, err := s.UpdateTournament(ctx, "t1", func(tn *persistence.Tournament) error {
		tn.Name = "changed"
		return refuse
	}); !errors.Is(err, refuse) {
		t.Fatalf("update whose change fails: %v", err)
	}
	if got, _ := s.Tournament(ctx, "t1"); got.Name == "changed" || got.Version != n+1 {
		t.Fatalf("a refused change was stored: %+v", got)
	}
	if _, err := s.UpdateTournament(ctx, "nope", func(*persistence.Tournament) error { return nil }); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("update of an unknown tournament: %v", err)
	}
}

// TestTournamentDue: a tournament comes due at its Due, is claimed by one
// sweeper at a time, comes back when a claim's lease runs out, and is
// indexed again at its record's Due when acknowledged.
func TestTournamentDue(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	s := e.store
	now := e.clk.Now()
	tn := newTournament("t1", now)
	tn.Due = now.Add(time.Minute)
	if err := s.CreateTournament(ctx, tn); err != nil {
		t.Fatal(err)
	}
	over := newTournament("t2", now)
	over.Status = persistence.TournamentCancelled // no Due: never due
	if err := s.CreateTournament(ctx, over); err != nil {
		t.Fatal(err)
	}
	var last []persistence.TournamentClaim
	claim := func(at time.Time) []string {
		t.Helper()
		claims, err := s.ClaimDueTournaments(ctx, at, 10)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, c := range claims {
			ids = append(ids, c.ID)
		}
		if len(claims) > 0 {
			last = claims
		}
		return ids
	}
	if ids := claim(now); len(ids) != 0 {
		t.Fatalf("claimed %v before anything was due (a cancelled tournament is never due)", ids)
	}
	at := now.Add(time.Minute)
	if ids := claim(at); !slices.Equal(ids, []string{"t1"}) {
		t.Fatalf("claimed %v at its Due, want t1", ids)
	}
	if ids := claim(at.Add(time.Second)); len(ids) != 0 {
		t.Fatalf("a second sweeper claimed %v during the lease", ids)
	}
	// A game ends meanwhile (a poke), and the record is updated: neither
	// hands the tournament to a second sweeper during the claim.
	if err := s.PokeTournament(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateTournament(ctx, "t1", func(tn *persistence.Tournament) error {
		tn.Due = at.Add(-time.Second)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if ids := claim(at.Add(2 * time.Second)); len(ids) != 0 {
		t.Fatalf("claimed %v again during the claim, after a poke", ids)
	}
	stale := last[0]
	if ids := claim(at.Add(2 * time.Minute)); !slices.Equal(ids, []string{"t1"}) {
		t.Fatalf("after the lease ran out: %v, want t1 again", ids)
	}
	// The first sweeper, late, acknowledges its claim: the second's stays.
	if err := s.AckTournament(ctx, stale, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if ids := claim(at.Add(2*time.Minute + 30*time.Second)); len(ids) != 0 {
		t.Fatalf("a late Ack of an old claim released the new one: %v claimed", ids)
	}
	// The sweeper moves its Due on and acknowledges.
	if _, err := s.UpdateTournament(ctx, "t1", func(tn *persistence.Tournament) error {
		tn.Due = at.Add(time.Hour)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.AckTournament(ctx, last[0], time.Time{}); err != nil {
		t.Fatal(err)
	}
	if ids := claim(at.Add(30 * time.Minute)); len(ids) != 0 {
		t.Fatalf("claimed %v before its new Due", ids)
	}
	if ids := claim(at.Add(time.Hour)); !slices.Equal(ids, []string{"t1"}) {
		t.Fatalf("at its new Due: %v, want t1", ids)
	}
	// A step that failed after bringing the Due forward (or being poked)
	// is retried no sooner than its Ack says: no retry at every sweep.
	if _, err := s.UpdateTournament(ctx, "t1", func(tn *persistence.Tournament) error {
		tn.Due = at.Add(time.Hour)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.PokeTournament(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	if err := s.AckTournament(ctx, last[0], at.Add(time.Hour+time.Minute)); err != nil {
		t.Fatal(err)
	}
	if ids := claim(at.Add(time.Hour + 59*time.Second)); len(ids) != 0 {
		t.Fatalf("a failed step came due again before its retry time: %v", ids)
	}
	if ids := claim(at.Add(time.Hour + time.Minute)); !slices.Equal(ids, []string{"t1"}) {
		t.Fatalf("at its retry time: %v, want t1", ids)
	}
	// Finished: acknowledged, it is never due again.
	if _, err := s.UpdateTournament(ctx, "t1", func(tn *persistence.Tournament) error {
		tn.Status, tn.Due = persistence.TournamentFinished, time.Time{}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.AckTournament(ctx, last[0], time.Time{}); err != nil {
		t.Fatal(err)
	}
	if ids := claim(at.Add(24 * time.Hour)); len(ids) != 0 {
		t.Fatalf("a finished tournament came due: %v", ids)
	}
}

// guildTournamentIDs lists the IDs of guild's tournaments, oldest first.
func guildTournamentIDs(t *testing.T, s *persistence.Store, guild string) []string {
	t.Helper()
	got, err := s.GuildTournaments(sessCtx(t), guild)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, tn := range got {
		ids = append(ids, tn.ID)
	}
	return ids
}

func TestGuildTournaments(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	s := e.store
	now := e.clk.Now()
	for i, id := range []string{"b", "a", "c"} {
		if err := s.CreateTournament(ctx, newTournament(id, now.Add(time.Duration(i)*time.Second))); err != nil {
			t.Fatal(err)
		}
	}
	other := newTournament("z", now)
	other.Guild = "H"
	if err := s.CreateTournament(ctx, other); err != nil {
		t.Fatal(err)
	}
	if err := e.rdb.Del(ctx, "ttt:tn:{a}").Err(); err != nil {
		t.Fatal(err)
	}
	if ids := guildTournamentIDs(t, s, "G"); !slices.Equal(ids, []string{"b", "c"}) {
		t.Fatalf("guild G's tournaments %v, want b, c (oldest first; a is gone)", ids)
	}
}

// TestSessionTournament: a game records the tournament it belongs to.
func TestSessionTournament(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	g := sessHumanGame("1", "2")
	g.Tournament = "t1"
	created, err := e.store.CreateGame(ctx, "C", g)
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.store.Game(ctx, created.ID)
	if err != nil || got.Tournament != "t1" {
		t.Fatalf("game %+v %v, want tournament t1", got, err)
	}
}

// TestForgetTournaments: forgetting a user rewrites the tournaments that
// name them (each forgotten player stays distinct, as pairings need), and
// forgetting a guild deletes its tournaments; both are idempotent.
func TestForgetTournaments(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	s := e.store
	tn := newTournament("t1", e.clk.Now())
	tn.Creator = "9"
	tn.Players = []persistence.Entrant{{ID: "9", Name: "nine"}, {ID: "8"}}
	tn.Games = []persistence.Pairing{{Round: 1, X: "9", O: "8", Result: "x"}}
	tn.Due = e.clk.Now()
	if err := s.CreateTournament(ctx, tn); err != nil {
		t.Fatal(err)
	}
	rep, err := s.ForgetUser(ctx, "9")
	if err != nil || rep.Tournaments != 1 {
		t.Fatalf("ForgetUser: %+v %v, want one tournament rewritten", rep, err)
	}
	got, err := s.Tournament(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	stand := got.Players[0].ID
	if !strings.HasPrefix(stand, persistence.ForgottenPrefix) || got.Players[0].Name != "" || got.Games[0].X != stand ||
		got.Creator != persistence.ForgottenUser || got.Players[1].ID != "8" {
		t.Fatalf("after forgetting 9: %+v", got)
	}
	if rep, err := s.ForgetUser(ctx, "9"); err != nil || rep.Tournaments != 0 {
		t.Fatalf("second ForgetUser: %+v %v, want nothing", rep, err)
	}
	rep, err = s.ForgetGuild(ctx, "G")
	if err != nil || rep.Tournaments != 1 {
		t.Fatalf("ForgetGuild: %+v %v, want one tournament deleted", rep, err)
	}
	if _, err := s.Tournament(ctx, "t1"); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("a forgotten guild's tournament: %v", err)
	}
	if ids, _ := s.ClaimDueTournaments(ctx, e.clk.Now().Add(time.Hour), 10); len(ids) != 0 {
		t.Fatalf("a forgotten guild's tournament is still due: %v", ids)
	}
	if rep, err := s.ForgetGuild(ctx, "G"); err != nil || rep.Tournaments != 0 {
		t.Fatalf("second ForgetGuild: %+v %v", rep, err)
	}
}

// TestCreateGameReservedID: a game created with a reserved ID is created
// once; a second create with it is refused with ErrConflict.
func TestCreateGameReservedID(t *testing.T) {
	e := newSessEnv(t, persistence.Options{AllowManyGames: true})
	ctx := sessCtx(t)
	id, err := persistence.NewGameID("C")
	if err != nil {
		t.Fatal(err)
	}
	g := sessHumanGame("1", "2")
	g.ID = id
	created, err := e.store.CreateGame(ctx, "C", g)
	if err != nil || created.ID != id {
		t.Fatalf("CreateGame with a reserved ID: %v %v", created, err)
	}
	if _, err := e.store.CreateGame(ctx, "C", g); !errors.Is(err, persistence.ErrConflict) {
		t.Fatalf("second CreateGame with it: %v, want ErrConflict", err)
	}
	if _, err := e.store.CreateGame(ctx, "D", g); !errors.Is(err, persistence.ErrInvalid) {
		t.Fatalf("CreateGame in another channel: %v, want ErrInvalid", err)
	}
}

// TestTournamentNames: a guild's tournament names are unique among those
// not over, compared without case (as strings.EqualFold does), and taken
// atomically: of many creates of one name at once, one wins. A name is
// free again once its tournament is over or gone, in another guild, or
// after the guild is forgotten.
func TestTournamentNames(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	s := e.store
	named := func(id, guild, name string) *persistence.Tournament {
		tn := newTournament(id, e.clk.Now())
		tn.Guild, tn.Name = guild, name
		return tn
	}
	steps := []struct {
		id, guild, name string
		over            bool // end the tournament after creating it
		gone            bool // delete its record after creating it
		taken           bool
	}{
		{id: "n1", guild: "G", name: "Friday Cup"},
		{id: "n2", guild: "G", name: "friday cup", taken: true},
		{id: "n3", guild: "G", name: "FRIDAY CUP", taken: true},
		{id: "n4", guild: "H", name: "Friday Cup"},                // another guild
		{id: "n5", guild: "G", name: "Straße"},                    // ß has no simple fold to "ss"
		{id: "n6", guild: "G", name: "STRASSE"},                   // so this is another name, as EqualFold says
		{id: "n7", guild: "G", name: "Кубок", over: true},         // Cyrillic, ended
		{id: "n8", guild: "G", name: "кубок"},                     // free: the first is over
		{id: "n9", guild: "G", name: "Kelvin \u212a", gone: true}, // Kelvin sign folds with k
		{id: "n10", guild: "G", name: "kelvin k"},                 // free: the first is gone
		{id: "n11", guild: "G", name: "KELVIN K", taken: true},
	}
	for _, st := range steps {
		err := s.CreateTournament(ctx, named(st.id, st.guild, st.name))
		if st.taken != errors.Is(err, persistence.ErrTournamentNameTaken) || (!st.taken && err != nil) {
			t.Fatalf("create %s %q in %s: %v, want taken %v", st.id, st.name, st.guild, err, st.taken)
		}
		if _, lerr := s.Tournament(ctx, st.id); st.taken != errors.Is(lerr, persistence.ErrNotFound) {
			t.Fatalf("%s after its create (%v): %v", st.id, err, lerr)
		}
		if st.over {
			if _, err := s.UpdateTournament(ctx, st.id, func(t *persistence.Tournament) error {
				t.Status = persistence.TournamentFinished
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		if st.gone {
			if err := e.rdb.Del(ctx, "ttt:tn:{"+st.id+"}").Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	ids := guildTournamentIDs(t, s, "G")
	slices.Sort(ids)
	if want := []string{"n1", "n10", "n5", "n6", "n7", "n8"}; !slices.Equal(ids, want) {
		t.Fatalf("guild G lists %v, want %v (no refused create listed)", ids, want)
	}
	if ttl := e.rdb.PTTL(ctx, "ttt:tn:{n1}").Val(); ttl != -1 {
		t.Fatalf("a named tournament's record expires in %v; want kept", ttl)
	}
	if ttl := e.rdb.PTTL(ctx, "ttt:tn:{n7}").Val(); ttl <= 0 {
		t.Fatalf("an ended tournament's record: TTL %v; want its retention time", ttl)
	}
	names := e.rdb.HGetAll(ctx, "ttt:tn-names:{g:G}").Val()
	if len(names) != 5 || slices.Contains(slices.Collect(maps.Values(names)), "n9") {
		t.Fatalf("names %v: want 5 (n8 took n7's), none held by the gone n9 (listing frees them)", names)
	}

	// Twelve creates of one name at once: exactly one wins.
	var wg sync.WaitGroup
	var mu sync.Mutex
	won, taken := 0, 0
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := s.CreateTournament(ctx, named(fmt.Sprint("race", i), "G", "Race"))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won++
			case errors.Is(err, persistence.ErrTournamentNameTaken):
				taken++
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if won != 1 || taken != 11 {
		t.Fatalf("12 creates of one name: %d won, %d refused; want 1 and 11", won, taken)
	}

	if _, err := s.ForgetGuild(ctx, "G"); err != nil {
		t.Fatal(err)
	}
	if n := e.rdb.Exists(ctx, "ttt:tn-names:{g:G}").Val(); n != 0 {
		t.Fatal("a forgotten guild's tournament names are kept")
	}
	if err := s.CreateTournament(ctx, named("after", "G", "Friday Cup")); err != nil {
		t.Fatalf("a name after the guild was forgotten: %v", err)
	}
}

// TestGuildTournamentsDuringCreates: a listing that runs while tournaments
// are created never drops one from its guild's list (a listed ID always
// has its record).
func TestGuildTournamentsDuringCreates(t *testing.T) {
	e := newSessEnv(t, persistence.Options{})
	ctx := sessCtx(t)
	s := e.store
	const n = 200
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range n {
			if err := s.CreateTournament(ctx, newTournament(fmt.Sprint("c", i), e.clk.Now())); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for listing := true; listing; {
		select {
		case <-done:
			listing = false
		default:
		}
		if _, err := s.GuildTournaments(ctx, "G"); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.GuildTournaments(ctx, "G")
	if err != nil || len(got) != n {
		t.Fatalf("guild G lists %d tournaments (%v); want %d", len(got), err, n)
	}
}
