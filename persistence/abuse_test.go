package persistence_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

func TestBlock(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	s := e.store

	blocked := func(user, target string) bool {
		t.Helper()
		ok, err := s.Blocked(ctx, user, target)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if blocked("a", "b") {
		t.Fatal("a blocks b before blocking anyone")
	}
	// Blocking is idempotent and one-way.
	for i, want := range []bool{true, false} {
		if added, err := s.Block(ctx, "a", "b", 3); err != nil || added != want {
			t.Fatalf("Block #%d = %v, %v; want %v", i+1, added, err, want)
		}
	}
	if !blocked("a", "b") || blocked("b", "a") {
		t.Fatalf("after a blocks b: a→b %v, b→a %v", blocked("a", "b"), blocked("b", "a"))
	}
	ab, ba, err := s.BlockedBetween(ctx, "b", "a")
	if err != nil || ab || !ba {
		t.Fatalf("BlockedBetween(b, a) = %v, %v, %v; want false, true", ab, ba, err)
	}
	// The limit: a third block fits, a fourth does not, re-blocking still works.
	if _, err := s.Block(ctx, "a", "c", 3); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Block(ctx, "a", "d", 3); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Block(ctx, "a", "e", 3); !errors.Is(err, persistence.ErrLimit) {
		t.Fatalf("a 4th block with a limit of 3: %v, want ErrLimit", err)
	}
	if added, err := s.Block(ctx, "a", "d", 3); err != nil || added {
		t.Fatalf("re-blocking at the limit = %v, %v; want false, nil", added, err)
	}
	if n, err := s.BlockCount(ctx, "a"); err != nil || n != 3 {
		t.Fatalf("BlockCount = %d, %v; want 3", n, err)
	}
	if _, err := s.Block(ctx, "a", "e", 0); err != nil {
		t.Fatalf("a block without a limit: %v", err)
	}
	// Unblock is idempotent too.
	for i, want := range []bool{true, false} {
		if removed, err := s.Unblock(ctx, "a", "b"); err != nil || removed != want {
			t.Fatalf("Unblock #%d = %v, %v; want %v", i+1, removed, err, want)
		}
	}
	if blocked("a", "b") || !blocked("a", "c") {
		t.Fatal("Unblock removed the wrong user")
	}
	// Another process sees the same blocks.
	if ok, err := e.another(t).Blocked(ctx, "a", "c"); err != nil || !ok {
		t.Fatalf("another Store: Blocked = %v, %v", ok, err)
	}
	if err := s.DeleteBlocks(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.BlockCount(ctx, "a"); n != 0 {
		t.Fatalf("%d blocks after DeleteBlocks", n)
	}
	for _, args := range [][2]string{{"a", "a"}, {"", "b"}, {"a", ""}} {
		if _, err := s.Block(ctx, args[0], args[1], 0); !errors.Is(err, persistence.ErrInvalid) {
			t.Errorf("Block(%q, %q): %v, want ErrInvalid", args[0], args[1], err)
		}
	}
}

func TestChallengeCooldown(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	s := e.store
	t0 := time.Date(2026, 11, 21, 18, 0, 0, 0, time.UTC)
	const d = 30 * time.Second

	claim := func(st *persistence.Store, guild, user string, at time.Time) (bool, time.Time) {
		t.Helper()
		ok, until, err := st.ChallengeCooldown(ctx, guild, user, d, at)
		if err != nil {
			t.Fatal(err)
		}
		return ok, until
	}
	if ok, until := claim(s, "G", "u", t0); !ok || !until.Equal(t0.Add(d)) {
		t.Fatalf("first claim = %v until %v; want true until %v", ok, until, t0.Add(d))
	}
	pu, err := s.Pseudonym("u")
	if err != nil {
		t.Fatal(err)
	}
	if ttl := e.rdb.PTTL(ctx, "ttt:cooldown:{g:G}:"+pu).Val(); ttl <= d-time.Second || ttl > d {
		t.Errorf("cooldown key TTL %v, want about %v", ttl, d)
	}
	tests := []struct {
		name        string
		guild, user string
		at          time.Duration
		ok          bool
		until       time.Duration
	}{
		{"at once", "G", "u", 0, false, d},
		{"a millisecond before the end", "G", "u", d - time.Millisecond, false, d},
		{"another user", "G", "v", time.Second, true, time.Second + d},
		{"another guild", "H", "u", time.Second, true, time.Second + d},
		{"direct messages", "", "u", time.Second, true, time.Second + d},
		{"at the end", "G", "u", d, true, 2 * d},
		{"the new cooldown", "G", "u", d + time.Second, false, 2 * d},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, until := claim(s, tt.guild, tt.user, t0.Add(tt.at))
			if ok != tt.ok || !until.Equal(t0.Add(tt.until)) {
				t.Fatalf("claim = %v until %v; want %v until %v", ok, until, tt.ok, t0.Add(tt.until))
			}
		})
	}

	// A claim given back frees the user at once, but only that claim.
	ok, until := claim(s, "G", "w", t0)
	if !ok {
		t.Fatal("w's first claim refused")
	}
	if err := s.ReleaseChallengeCooldown(ctx, "G", "w", until.Add(time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if ok, _ := claim(s, "G", "w", t0.Add(time.Second)); ok {
		t.Fatal("a release of another claim freed w")
	}
	if err := s.ReleaseChallengeCooldown(ctx, "G", "w", until); err != nil {
		t.Fatal(err)
	}
	if ok, _ := claim(s, "G", "w", t0.Add(time.Second)); !ok {
		t.Fatal("w refused after giving the claim back")
	}

	// Zero turns it off.
	if ok, _, err := s.ChallengeCooldown(ctx, "G", "u", 0, t0); err != nil || !ok {
		t.Fatalf("a zero cooldown = %v, %v", ok, err)
	}

	// Of many replicas claiming at once, one wins.
	stores := []*persistence.Store{s, e.another(t)}
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			ok, _, err := stores[i%2].ChallengeCooldown(ctx, "G", "race", d, t0)
			if err != nil {
				t.Error(err)
			}
			if ok {
				wins.Add(1)
			}
		})
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d of 20 concurrent claims won, want 1", wins.Load())
	}
}

func TestOpenChallenges(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{ChallengeTTL: 5 * time.Minute})
	ctx := corpusCtx(t)
	s := e.store

	challenge := func(channel, guild, user string) *persistence.Session {
		t.Helper()
		g, err := s.CreateGame(ctx, channel, persistence.Session{Rules: "3x3k3", Status: persistence.StatusOpen,
			Challenger: game.X, Players: [2]persistence.Seat{{User: user}, {}}, Guild: guild})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.AddOpenChallenge(ctx, g); err != nil {
			t.Fatal(err)
		}
		return g
	}
	count := func(guild, user string) int {
		t.Helper()
		n, err := s.OpenChallenges(ctx, guild, user)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count("G", "a"); n != 0 {
		t.Fatalf("%d open challenges before any", n)
	}
	challenge("c1", "G", "a")
	e.clk.Advance(time.Minute)
	c2 := challenge("c2", "G", "a")
	c3 := challenge("c3", "G", "a")
	challenge("c4", "H", "a")
	challenge("c5", "G", "b")
	if n := count("G", "a"); n != 3 {
		t.Fatalf("%d open challenges of a in G, want 3", n)
	}
	if ttl := e.rdb.PTTL(ctx, "ttt:open:{g:G}:a").Val(); ttl <= 4*time.Minute || ttl > 6*time.Minute {
		t.Errorf("index TTL %v, want the latest deadline (5 min) and a minute", ttl)
	}
	// Accepted, declined: no longer open, whoever ended them.
	if _, err := s.Accept(ctx, c2.ID, 0, "b"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Decline(ctx, c3.ID, 0, "a"); err != nil {
		t.Fatal(err)
	}
	if n := count("G", "a"); n != 1 {
		t.Fatalf("%d open challenges after an accept and a cancel, want 1", n)
	}
	if got := e.rdb.ZCard(ctx, "ttt:open:{g:G}:a").Val(); got != 1 {
		t.Errorf("the index keeps %d entries, want the 1 still open", got)
	}
	// Past its deadline, c1 no longer counts (whether or not the sweeper
	// has been by), and neither does a game whose key is gone.
	e.clk.Advance(4*time.Minute + time.Second)
	if n := count("G", "a"); n != 0 {
		t.Fatalf("%d open challenges after c1's deadline, want 0", n)
	}
	c6 := challenge("c6", "G", "a")
	if err := e.rdb.Del(ctx, persistence.GameKeyForTest(s, c6.ID)).Err(); err != nil {
		t.Fatal(err)
	}
	if n := count("G", "a"); n != 0 {
		t.Fatalf("%d open challenges after the game's key expired, want 0", n)
	}
	if n := count("H", "a"); n != 1 { // c4, made a minute after c1
		t.Fatalf("%d open challenges of a in H, want 1", n)
	}
	// Only open challenges go in.
	active := *c2
	active.Status = persistence.StatusActive
	if err := s.AddOpenChallenge(ctx, &active); !errors.Is(err, persistence.ErrInvalid) {
		t.Fatalf("AddOpenChallenge of an active game: %v, want ErrInvalid", err)
	}
}

func TestAllow(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	s := e.store
	t0 := time.Date(2026, 11, 21, 18, 0, 0, 0, time.UTC)

	// A bucket of 3, refilled at 2 a second (a token every 500 ms).
	steps := []struct {
		at    time.Duration
		ok    bool
		retry time.Duration
	}{
		{0, true, 0},
		{0, true, 0},
		{0, true, 0},
		{0, false, 500 * time.Millisecond},
		{499 * time.Millisecond, false, time.Millisecond},
		{500 * time.Millisecond, true, 0},
		{500 * time.Millisecond, false, 500 * time.Millisecond},
		{1750 * time.Millisecond, true, 0}, // 2.5 tokens refilled, 1.5 left
		{1750 * time.Millisecond, true, 0},
		{1750 * time.Millisecond, false, 250 * time.Millisecond},
		{10 * time.Second, true, 0}, // full again, never more than 3
		{10 * time.Second, true, 0},
		{10 * time.Second, true, 0},
		{10 * time.Second, false, 500 * time.Millisecond},
		// A clock that goes back a little (another replica's) is not a refill.
		{9 * time.Second, false, 1500 * time.Millisecond},
	}
	for i, st := range steps {
		ok, retry, err := s.Allow(ctx, "u:1", 3, 2, t0.Add(st.at))
		if err != nil {
			t.Fatal(err)
		}
		if ok != st.ok || retry != st.retry {
			t.Fatalf("step %d at +%v: Allow = %v, retry %v; want %v, %v", i, st.at, ok, retry, st.ok, st.retry)
		}
	}
	if ttl := e.rdb.PTTL(ctx, "ttt:rate:{u:1}").Val(); ttl <= 0 || ttl > 1502*time.Millisecond {
		t.Errorf("bucket TTL %v, want the time to refill (1.5 s)", ttl)
	}
	// After a SCRIPT FLUSH (a restart, a failover) the script is sent again.
	if err := e.rdb.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := s.Allow(ctx, "u:1", 3, 2, t0.Add(10*time.Second)); err != nil || ok {
		t.Fatalf("after SCRIPT FLUSH: %v, %v; want a refusal", ok, err)
	}
	// Buckets are independent.
	if ok, _, err := s.Allow(ctx, "u:2", 3, 2, t0.Add(10*time.Second)); err != nil || !ok {
		t.Fatalf("another bucket: %v, %v", ok, err)
	}
	// A slow rate: 1 every 4 s.
	for i, want := range []bool{true, false} {
		ok, retry, err := s.Allow(ctx, "slow", 1, 0.25, t0)
		if err != nil || ok != want || !ok && retry != 4*time.Second {
			t.Fatalf("slow #%d: %v, retry %v, %v", i, ok, retry, err)
		}
	}
	for _, bad := range []struct {
		bucket   string
		capacity int
		rate     float64
	}{{"", 1, 1}, {"x", 0, 1}, {"x", 1, 0}, {"x", 1, -1}, {"{x}", 1, 1}} {
		if _, _, err := s.Allow(ctx, bad.bucket, bad.capacity, bad.rate, t0); !errors.Is(err, persistence.ErrInvalid) {
			t.Errorf("Allow(%q, %d, %v): %v, want ErrInvalid", bad.bucket, bad.capacity, bad.rate, err)
		}
	}
}

// TestAllowConcurrent takes from one bucket through two Stores (two
// replicas) at once: exactly the capacity is allowed.
func TestAllowConcurrent(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	stores := []*persistence.Store{e.store, e.another(t)}
	now := time.Date(2026, 11, 21, 18, 0, 0, 0, time.UTC)
	const capacity, tries = 10, 50
	var allowed atomic.Int32
	var wg sync.WaitGroup
	for i := range tries {
		wg.Go(func() {
			ok, _, err := stores[i%2].Allow(ctx, "u:race", capacity, 2, now)
			if err != nil {
				t.Error(err)
			}
			if ok {
				allowed.Add(1)
			}
		})
	}
	wg.Wait()
	if allowed.Load() != capacity {
		t.Fatalf("%d of %d concurrent actions allowed, want %d", allowed.Load(), tries, capacity)
	}
}

// ExampleStore_Allow limits a user to a burst of 2 actions, refilled at 1
// a second, on the in-process server Open falls back to.
func ExampleStore_AllowUser() {
	ctx := context.Background()
	rdb, closeRedis, err := persistence.Open(ctx, persistence.OpenOptions{InMemory: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer closeRedis()
	s := persistence.New(rdb, persistence.Options{})
	now := time.Date(2026, 11, 21, 18, 0, 0, 0, time.UTC)
	for _, at := range []time.Duration{0, 0, 0, 250 * time.Millisecond, time.Second} {
		ok, retry, err := s.AllowUser(ctx, "918273645546372819", 2, 1, now.Add(at))
		fmt.Println(at, ok, retry, err)
	}
	// Output:
	// 0s true 0s <nil>
	// 0s true 0s <nil>
	// 0s false 1s <nil>
	// 250ms false 750ms <nil>
	// 1s true 0s <nil>
}

// TestAbuseCluster runs blocks, the open-challenge index and a bucket on a
// three-node Redis Cluster: each script touches one key, and the reads
// that span users or channels (BlockedBetween, OpenChallenges) work across
// nodes.
func TestAbuseCluster(t *testing.T) {
	seeds := sessStartCluster(t)
	ctx := corpusCtx(t)
	rdb, closeFn, err := persistence.Open(ctx, persistence.OpenOptions{URL: seeds})
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	clk := newTestClock()
	s := persistence.New(rdb, persistence.Options{Now: clk.Now})
	for i := range 20 {
		a, b := fmt.Sprintf("a%d", i), fmt.Sprintf("b%d", i)
		if _, err := s.Block(ctx, b, a, 1000); err != nil {
			t.Fatal(err)
		}
		ab, ba, err := s.BlockedBetween(ctx, a, b)
		if err != nil || ab || !ba {
			t.Fatalf("BlockedBetween(%s, %s) = %v, %v, %v", a, b, ab, ba, err)
		}
	}
	for i := range 10 {
		g, err := s.CreateGame(ctx, fmt.Sprintf("%d", 5000+i), persistence.Session{Rules: "3x3k3", Status: persistence.StatusOpen,
			Challenger: game.X, Players: [2]persistence.Seat{{User: "u"}, {}}, Guild: "G"})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.AddOpenChallenge(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := s.OpenChallenges(ctx, "G", "u"); err != nil || n != 10 {
		t.Fatalf("OpenChallenges = %d, %v; want 10", n, err)
	}
	if ok, _, err := s.ChallengeCooldown(ctx, "G", "u", time.Minute, clk.Now()); err != nil || !ok {
		t.Fatalf("ChallengeCooldown = %v, %v", ok, err)
	}
	if ok, _, err := s.AllowUser(ctx, "u", 1, 1, clk.Now()); err != nil || !ok {
		t.Fatalf("AllowUser = %v, %v", ok, err)
	}
	// Blocks stored by ID move across slots to their pseudonyms' sets.
	if err := rdb.SAdd(ctx, "ttt:block:{u:old}", "a1", "a2").Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := s.MigrateBlocks(ctx); err != nil || n != 2 {
		t.Fatalf("MigrateBlocks = %d, %v; want 2", n, err)
	}
	if ab, ba, err := s.BlockedBetween(ctx, "a2", "old"); err != nil || ab || !ba {
		t.Fatalf("BlockedBetween(a2, old) after the migration = %v, %v, %v", ab, ba, err)
	}
}

// abuseIDs are long IDs, as Discord's are, so that finding one in a dump
// cannot be a coincidence.
const (
	abuseA = "620000000000000001"
	abuseB = "620000000000000002"
)

// TestAbuseKeysHoldNoIDs: blocks, cooldowns, a user's rate bucket and
// throttle name users by pseudonym, in key names and values, with a
// pseudonym key and without one, and still work as before.
func TestAbuseKeysHoldNoIDs(t *testing.T) {
	for _, tt := range []struct {
		name string
		key  []byte
	}{{"pseudonym key", nil}, {"no pseudonym key", []byte{}}} {
		t.Run(tt.name, func(t *testing.T) {
			e := newCorpusEnv(t, persistence.Options{PseudonymKey: tt.key})
			ctx := corpusCtx(t)
			s := e.store
			now := e.clk.Now()
			if _, err := s.Block(ctx, abuseA, abuseB, 0); err != nil {
				t.Fatal(err)
			}
			if ok, _, err := s.ChallengeCooldown(ctx, "G", abuseA, time.Minute, now); err != nil || !ok {
				t.Fatalf("ChallengeCooldown = %v, %v", ok, err)
			}
			if ok, _, err := s.AllowUser(ctx, abuseA, 1, 1, now); err != nil || !ok {
				t.Fatalf("AllowUser = %v, %v", ok, err)
			}
			if ok, _, err := s.ThrottleUser(ctx, "forget-me", abuseA, time.Minute, now); err != nil || !ok {
				t.Fatalf("ThrottleUser = %v, %v", ok, err)
			}
			dump := forgetDump(t, ctx, e.rdb)
			if len(dump) != 4 {
				t.Fatalf("stored %d keys, want 4:\n%s", len(dump), strings.Join(dump, "\n"))
			}
			wantNowhere(t, dump, abuseA, abuseB)
			if pa, err := s.Pseudonym(abuseA); err == nil && !strings.Contains(strings.Join(dump, "\n"), pa) {
				t.Errorf("the keys do not name %s by pseudonym:\n%s", abuseA, strings.Join(dump, "\n"))
			}
			// Each still does its work, seen from another process.
			o := e.another(t)
			if ab, ba, err := o.BlockedBetween(ctx, abuseB, abuseA); err != nil || ab || !ba {
				t.Errorf("BlockedBetween(B, A) = %v, %v, %v; want false, true", ab, ba, err)
			}
			if ok, _, err := o.ChallengeCooldown(ctx, "G", abuseA, time.Minute, now); err != nil || ok {
				t.Errorf("a second cooldown claim = %v, %v; want refused", ok, err)
			}
			if ok, _, err := o.AllowUser(ctx, abuseA, 1, 1, now); err != nil || ok {
				t.Errorf("a second action from a bucket of 1 = %v, %v; want refused", ok, err)
			}
			if ok, _, err := o.ThrottleUser(ctx, "forget-me", abuseA, time.Minute, now); err != nil || ok {
				t.Errorf("a second forget-me = %v, %v; want refused", ok, err)
			}
			if ok, _, err := o.ThrottleUser(ctx, "forget-me", abuseB, time.Minute, now); err != nil || !ok {
				t.Errorf("another user's forget-me = %v, %v; want allowed", ok, err)
			}
			if _, _, err := s.AllowUser(ctx, "", 1, 1, now); !errors.Is(err, persistence.ErrInvalid) {
				t.Errorf("AllowUser(\"\"): %v, want ErrInvalid", err)
			}
			if _, _, err := s.ThrottleUser(ctx, "", abuseA, time.Minute, now); !errors.Is(err, persistence.ErrInvalid) {
				t.Errorf("ThrottleUser without an action: %v, want ErrInvalid", err)
			}
		})
	}
}

// TestMigrateBlocks moves blocks stored by Discord ID (before blocks were
// named by pseudonym) to their pseudonyms, so that they keep working.
func TestMigrateBlocks(t *testing.T) {
	e := newCorpusEnv(t, persistence.Options{})
	ctx := corpusCtx(t)
	s := e.store
	pb, _ := s.Pseudonym(abuseB)
	// As the earlier version stored them: abuseA blocks abuseB, and a set
	// by ID that already holds a pseudonym (ForgetUser rewrote it).
	if err := e.rdb.SAdd(ctx, "ttt:block:{u:"+abuseA+"}", abuseB, "c").Err(); err != nil {
		t.Fatal(err)
	}
	if err := e.rdb.SAdd(ctx, "ttt:block:{u:d}", pb).Err(); err != nil {
		t.Fatal(err)
	}
	// And one stored since: abuseA blocks e.
	if _, err := s.Block(ctx, abuseA, "e", 0); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.Blocked(ctx, abuseA, abuseB); ok {
		t.Fatal("setup: the block stored by ID is seen before the migration")
	}
	n, err := s.MigrateBlocks(ctx)
	if err != nil || n != 3 {
		t.Fatalf("MigrateBlocks = %d, %v; want 3", n, err)
	}
	for _, b := range [][2]string{{abuseA, abuseB}, {abuseA, "c"}, {abuseA, "e"}, {"d", abuseB}} {
		if ok, err := s.Blocked(ctx, b[0], b[1]); err != nil || !ok {
			t.Errorf("Blocked(%s, %s) after the migration = %v, %v", b[0], b[1], ok, err)
		}
	}
	if n, err := s.BlockCount(ctx, abuseA); err != nil || n != 3 {
		t.Errorf("BlockCount(A) = %d, %v; want 3", n, err)
	}
	dump := forgetDump(t, ctx, e.rdb)
	wantNowhere(t, dump, abuseA, abuseB, "ttt:block:{u:d}")
	if n, err := s.MigrateBlocks(ctx); err != nil || n != 0 {
		t.Errorf("a second MigrateBlocks = %d, %v; want nothing", n, err)
	}
}

// BenchmarkAllow measures the rate-limit check every interaction pays,
// from many goroutines (it shares the game path's pipelines under load).
func BenchmarkAllow(b *testing.B) {
	e := newCorpusEnv(b, persistence.Options{})
	ctx := context.Background()
	now := time.Date(2026, 11, 21, 18, 0, 0, 0, time.UTC)
	var n atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		bucket := fmt.Sprintf("u:%d", n.Add(1))
		for pb.Next() {
			if _, _, err := e.store.Allow(ctx, bucket, 1<<30, 2, now); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
