package bot

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/redis/go-redis/v9"

	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/persistence"
)

// TestRenderAbuseGolden pins every answer of blocks and the abuse limits
// in each locale: private, without pings, and within Discord's limits.
func TestRenderAbuseGolden(t *testing.T) {
	r := testRenderer(t)
	cause := errors.New("cause")
	cases := []struct {
		name string
		data func(loc discordgo.Locale) *discordgo.InteractionResponseData
	}{
		{"block-done", func(loc discordgo.Locale) *discordgo.InteractionResponseData {
			return r.Reply(loc, KeyBlockDone, "user", render.Mention(bob))
		}},
		{"block-undone", func(loc discordgo.Locale) *discordgo.InteractionResponseData {
			return r.Reply(loc, KeyUnblockDone, "user", render.Mention(bob))
		}},
		{"block-limit", func(loc discordgo.Locale) *discordgo.InteractionResponseData {
			return r.Error(loc, &UserError{Key: KeyBlockLimit, Vars: []string{"count", strconv.Itoa(MaxBlocks)}, Err: cause})
		}},
		{"cant-play", func(loc discordgo.Locale) *discordgo.InteractionResponseData {
			return r.Error(loc, cantPlayErr(bob, cause))
		}},
		{"block-you-blocked", func(loc discordgo.Locale) *discordgo.InteractionResponseData {
			return r.Error(loc, &UserError{Key: KeyYouBlocked, Vars: []string{"user", render.Mention(bob)}, Err: cause})
		}},
		{"block-cooldown", func(loc discordgo.Locale) *discordgo.InteractionResponseData {
			return r.Error(loc, cooldownErr(fixedNow.Add(DefaultChallengeCooldown)))
		}},
		{"block-open-limit", func(loc discordgo.Locale) *discordgo.InteractionResponseData {
			return r.Error(loc, userErr(KeyOpenLimit, "count", strconv.Itoa(DefaultMaxOpenChallenges)))
		}},
		{"slowdown", func(loc discordgo.Locale) *discordgo.InteractionResponseData {
			return r.Error(loc, &UserError{Key: KeySlowDown, Err: cause})
		}},
	}
	for _, tc := range cases {
		for _, loc := range goldenLocales {
			t.Run(tc.name+"/"+string(loc), func(t *testing.T) {
				d := checked(t, tc.data(loc))
				if d.Flags&discordgo.MessageFlagsEphemeral == 0 {
					t.Error("not ephemeral: every answer about blocks and limits is private")
				}
				if d.AllowedMentions == nil || len(d.AllowedMentions.Parse) > 0 || len(d.AllowedMentions.Users) > 0 {
					t.Errorf("allowed mentions %+v: the answer must not ping anyone", d.AllowedMentions)
				}
				if strings.Contains(d.Content, "[[") || strings.Contains(d.Content, "{") {
					t.Errorf("unfilled text %q", d.Content)
				}
				if strings.Contains(d.Content, "cause") {
					t.Errorf("the cause leaks into %q", d.Content)
				}
				goldenFile(t, tc.name+"."+string(loc)+".json", wireJSON(t, d))
			})
		}
	}
}

// TestCooldownErr checks the relative timestamp of the cooldown refusal:
// the second the user may challenge again, rounded up.
func TestCooldownErr(t *testing.T) {
	base := time.Unix(1_800_000_000, 0)
	for _, tc := range []struct {
		until time.Time
		want  string
	}{
		{base, "<t:1800000000:R>"},
		{base.Add(time.Millisecond), "<t:1800000001:R>"},
		{base.Add(999 * time.Millisecond), "<t:1800000001:R>"},
	} {
		e := cooldownErr(tc.until)
		if e.Key != KeyCooldown || len(e.Vars) != 2 || e.Vars[1] != tc.want {
			t.Errorf("cooldownErr(%v) = %+v, want when %s", tc.until, e, tc.want)
		}
	}
}

func TestNewAbuseLimits(t *testing.T) {
	def := abuseLimits{cooldown: DefaultChallengeCooldown, maxOpen: DefaultMaxOpenChallenges, burst: DefaultRateBurst, perSecond: DefaultRatePerSecond}
	tests := []struct {
		name string
		o    Options
		want abuseLimits
	}{
		{"zero asks for the defaults", Options{}, def},
		{"set", Options{ChallengeCooldown: time.Minute, MaxOpenChallenges: 1, RateBurst: 5, RatePerSecond: 0.5},
			abuseLimits{cooldown: time.Minute, maxOpen: 1, burst: 5, perSecond: 0.5}},
		{"negative turns off", Options{ChallengeCooldown: -1, MaxOpenChallenges: -1, RateBurst: -1},
			abuseLimits{}},
		{"a negative rate turns the bucket off", Options{RatePerSecond: -1},
			abuseLimits{cooldown: DefaultChallengeCooldown, maxOpen: DefaultMaxOpenChallenges}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := newAbuseLimits(tt.o); got != tt.want {
				t.Fatalf("newAbuseLimits = %+v, want %+v", got, tt.want)
			}
		})
	}
	// A 5x5 game played as fast as possible against the computer (its
	// command and the 13 moves of one player) fits in the default burst.
	if moves := (5*5 + 1) / 2; 1+moves > DefaultRateBurst {
		t.Errorf("a 5x5 game takes %d actions, over the default burst of %d", 1+moves, DefaultRateBurst)
	}
}

// TestThrottleFailsOpen checks that the rate limit lets an interaction
// through, with a warning for the log, when Redis does not answer, and
// that it leaves alone interactions that are not commands or clicks.
func TestThrottleFailsOpen(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	t.Cleanup(func() { _ = rdb.Close() })
	b := &Bot{store: persistence.New(rdb, persistence.Options{}), abuse: newAbuseLimits(Options{}), now: time.Now}
	for _, tc := range []struct {
		typ      discordgo.InteractionType
		warnings int
	}{
		{discordgo.InteractionApplicationCommand, 1},
		{discordgo.InteractionMessageComponent, 1},
		{discordgo.InteractionApplicationCommandAutocomplete, 0},
	} {
		c := &call{i: &discordgo.Interaction{ID: "1", Type: tc.typ}, user: "100"}
		if err := b.throttle(context.Background(), c); err != nil {
			t.Errorf("%s: throttle = %v, want nil (fail open)", tc.typ, err)
		}
		if len(c.warnings) != tc.warnings {
			t.Errorf("%s: warnings %v, want %d", tc.typ, c.warnings, tc.warnings)
		}
	}
	// Turned off, it does not even ask.
	b.abuse = newAbuseLimits(Options{RateBurst: -1})
	c := &call{i: &discordgo.Interaction{ID: "2", Type: discordgo.InteractionApplicationCommand}, user: "100"}
	if err := b.throttle(context.Background(), c); err != nil || len(c.warnings) != 0 {
		t.Errorf("off: throttle = %v, warnings %v", err, c.warnings)
	}
}
