package bot

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/persistence"
)

// What keeps a challenged user from being paralysed by spam: blocks, a
// cooldown between one user's challenges, a cap on their unanswered
// challenges, and a rate limit on everyone's commands and clicks.

// Defaults of the abuse limits in Options.
const (
	// DefaultChallengeCooldown is the least time between two challenges
	// by one user in one server: long enough that challenges cannot bury
	// anyone, short enough not to be felt between games.
	DefaultChallengeCooldown = 30 * time.Second
	// DefaultMaxOpenChallenges is how many unanswered challenges one user
	// may have open in one server at once.
	DefaultMaxOpenChallenges = 3
	// DefaultRateBurst is how many commands and clicks a user may make in
	// a burst. A 5x5 game is at most 13 moves of one player, so the
	// command that starts it and every move fit in the burst even against
	// the computer, which answers at once.
	DefaultRateBurst = 15
	// DefaultRatePerSecond is how fast the burst refills: each click
	// waits for the board to come back from Discord, so people playing
	// fast stay below it, while a script is held to it.
	DefaultRatePerSecond = 2.0
	// MaxBlocks is how many users one user may block.
	MaxBlocks = 1000
	// rateLimitTimeout bounds the rate-limit check: past it the
	// interaction is let through (the check fails open).
	rateLimitTimeout = 500 * time.Millisecond
)

// Keys of the blocks' answers and the abuse limits' refusals.
const (
	// KeyCantPlay refuses a challenge to, a rematch of, or joining the
	// challenge of someone who cannot play the user now: they blocked
	// the user, or (a direct challenge) they already have the server's
	// most live games per player, so could not accept. It names no
	// reason, so the blocked are not told they are blocked, as the
	// blocker is promised (KeyBlockDone).
	KeyCantPlay = "reply.cant_play"
	// KeyYouBlocked refuses joining the challenge of someone the user
	// blocked.
	KeyYouBlocked = "reply.you_blocked"
	// KeyBlockDone answers /ttt block (also when already blocked).
	KeyBlockDone = "reply.block_done"
	// KeyUnblockDone answers /ttt unblock (also when not blocked).
	KeyUnblockDone = "reply.unblock_done"
	// KeyBlockLimit refuses a block past MaxBlocks.
	KeyBlockLimit = "reply.block_limit"
	// KeyCooldown refuses a challenge within the cooldown.
	KeyCooldown = "reply.cooldown"
	// KeyOpenLimit refuses a challenge past the open-challenge limit.
	KeyOpenLimit = "reply.open_limit"
	// KeySlowDown refuses an interaction over the user's rate limit.
	KeySlowDown = "reply.slow_down"
)

// abuseLimits are the abuse limits of Options, resolved: zero turns a
// limit off.
type abuseLimits struct {
	cooldown  time.Duration
	maxOpen   int
	burst     int
	perSecond float64
}

// newAbuseLimits applies the defaults of o: a zero field asks for the
// default, a negative one turns its limit off.
func newAbuseLimits(o Options) abuseLimits {
	l := abuseLimits{cooldown: o.ChallengeCooldown, maxOpen: o.MaxOpenChallenges, burst: o.RateBurst, perSecond: o.RatePerSecond}
	switch {
	case l.cooldown == 0:
		l.cooldown = DefaultChallengeCooldown
	case l.cooldown < 0:
		l.cooldown = 0
	}
	switch {
	case l.maxOpen == 0:
		l.maxOpen = DefaultMaxOpenChallenges
	case l.maxOpen < 0:
		l.maxOpen = 0
	}
	if l.burst == 0 {
		l.burst = DefaultRateBurst
	}
	if l.perSecond == 0 {
		l.perSecond = DefaultRatePerSecond
	}
	if l.burst < 0 || !(l.perSecond > 0) {
		l.burst, l.perSecond = 0, 0
	}
	return l
}

// cooldownFor is the challenge cooldown in guild ("" outside servers);
// zero for none. Per-server settings override the bot's here.
func (b *Bot) cooldownFor(ctx context.Context, c *call, guild string) time.Duration {
	st, err := b.settings(ctx, c, guild)
	if err != nil {
		c.warnings = append(c.warnings, err) // the bot's default applies
		return b.abuse.cooldown
	}
	return st.ChallengeCooldown
}

// openLimitFor is how many open challenges one user may have in guild;
// zero for no limit. Per-server settings override the bot's here.
func (b *Bot) openLimitFor(_ context.Context, _ *call, _ string) int {
	return b.abuse.maxOpen
}

// throttle takes one action from the user's rate-limit bucket (one per
// user, named by their pseudonym, shared by every replica) for a command
// or a click, and refuses
// the interaction with KeySlowDown when it is empty. It fails open: if
// Redis does not answer in time, the interaction goes ahead and the
// failure is logged as a warning.
func (b *Bot) throttle(ctx context.Context, c *call) error {
	if b.abuse.burst == 0 || c.i.Type != discordgo.InteractionApplicationCommand && c.i.Type != discordgo.InteractionMessageComponent {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, rateLimitTimeout)
	defer cancel()
	ok, wait, err := b.store.AllowUser(ctx, c.user, b.abuse.burst, b.abuse.perSecond, b.now())
	switch {
	case err != nil:
		c.warnings = append(c.warnings, fmt.Errorf("bot: rate limit not checked, interaction allowed: %w", err))
		return nil
	case !ok:
		return &UserError{Key: KeySlowDown, Err: fmt.Errorf("bot: user %s is over the rate limit for %v", c.user, wait)}
	}
	return nil
}

// createChallenge creates the open challenge g in the interaction's
// channel after the abuse checks: a direct challenge the opponent could
// not take is refused (checkOpponent), and so is one past the user's
// limit of open challenges or within their cooldown in this server. The
// cooldown is claimed before the game is created and given back if it
// cannot be.
func (b *Bot) createChallenge(ctx context.Context, c *call, g persistence.Session) (*persistence.Session, error) {
	guild, challenger := g.Guild, g.Seat(g.Challenger).User
	if opp := g.Seat(g.Challenger.Other()).User; opp != "" {
		if err := b.checkOpponent(ctx, c, guild, challenger, opp); err != nil {
			return nil, err
		}
	}
	if limit := b.openLimitFor(ctx, c, guild); limit > 0 {
		n, err := b.store.OpenChallenges(ctx, guild, challenger)
		if err != nil {
			return nil, err
		}
		if n >= limit {
			return nil, userErr(KeyOpenLimit, "count", strconv.Itoa(limit))
		}
	}
	var until time.Time
	if d := b.cooldownFor(ctx, c, guild); d > 0 {
		ok, t, err := b.store.ChallengeCooldown(ctx, guild, challenger, d, b.now())
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, cooldownErr(t)
		}
		until = t
	}
	s, err := b.store.CreateGame(ctx, c.i.ChannelID, g)
	if err != nil {
		if !until.IsZero() {
			if rerr := b.store.ReleaseChallengeCooldown(ctx, guild, challenger, until); rerr != nil {
				c.warnings = append(c.warnings, rerr)
			}
		}
		return nil, err
	}
	if err := b.store.AddOpenChallenge(ctx, s); err != nil {
		c.warnings = append(c.warnings, err) // the limit misses one challenge until it ends
	}
	return s, nil
}

// checkOpponent refuses a direct challenge by challenger that opp could
// not take, with KeyCantPlay whatever the reason: opp blocked the
// challenger, or opp already has the server's most live games per player
// (settings.Server.UserGames), so accepting would be refused. Both causes give
// the same answer, so the answer alone does not tell a block.
func (b *Bot) checkOpponent(ctx context.Context, c *call, guild, challenger, opp string) error {
	blocked, err := b.store.Blocked(ctx, opp, challenger)
	if err != nil {
		return err
	}
	if blocked {
		return cantPlayErr(opp, fmt.Errorf("bot: %s blocked challenger %s", opp, challenger))
	}
	st, err := b.settings(ctx, c, guild)
	if err != nil {
		return err
	}
	if limit := st.UserGames; limit > 0 {
		n, err := b.store.UserGames(ctx, guild, opp, limit)
		if err != nil {
			return err
		}
		if n >= limit {
			return cantPlayErr(opp, fmt.Errorf("bot: opponent %s has %d live games in guild %s, the server's limit", opp, n, guild))
		}
	}
	return nil
}

// checkJoin refuses a click on Join (action) of an open challenge by
// challenger when either has blocked the other: KeyCantPlay, which does
// not say why, to the one blocked; KeyYouBlocked to the one who blocked.
func (b *Bot) checkJoin(ctx context.Context, c *call, action customid.Action, challenger string) error {
	if action != customid.ActionJoin {
		return nil
	}
	theyBlock, youBlock, err := b.store.BlockedBetween(ctx, challenger, c.user)
	switch {
	case err != nil:
		return err
	case theyBlock:
		return cantPlayErr(challenger, fmt.Errorf("bot: challenger %s blocked %s", challenger, c.user))
	case youBlock:
		return &UserError{Key: KeyYouBlocked, Vars: []string{"user", render.Mention(challenger)},
			Err: fmt.Errorf("bot: %s blocked challenger %s", c.user, challenger)}
	}
	return nil
}

// The routes of /ttt block and /ttt unblock (see routes.go).
func init() {
	routeCommand(command.Path(command.Name, command.SubBlock), (*Bot).block)
	routeCommand(command.Path(command.Name, command.SubUnblock), (*Bot).block)
}

// block handles /ttt block and /ttt unblock; both answer privately and
// are idempotent.
func (b *Bot) block(ctx context.Context, c *call, r command.BlockRequest) error {
	if r.Unblock {
		if _, err := b.store.Unblock(ctx, c.user, r.User); err != nil {
			return err
		}
		return b.respond(ctx, c, respMessage, b.render.Reply(c.loc, KeyUnblockDone, "user", render.Mention(r.User)))
	}
	_, err := b.store.Block(ctx, c.user, r.User, MaxBlocks)
	if errors.Is(err, persistence.ErrLimit) {
		return &UserError{Key: KeyBlockLimit, Vars: []string{"count", strconv.Itoa(MaxBlocks)}, Err: err}
	}
	if err != nil {
		return err
	}
	return b.respond(ctx, c, respMessage, b.render.Reply(c.loc, KeyBlockDone, "user", render.Mention(r.User)))
}

// cantPlayErr refuses a game with user (KeyCantPlay), with its cause for
// the logs only.
func cantPlayErr(user string, cause error) *UserError {
	return &UserError{Key: KeyCantPlay, Vars: []string{"user", render.Mention(user)}, Err: cause}
}

// cooldownErr refuses a challenge until until, shown as a Discord
// relative timestamp ("in 20 seconds") rounded up to the second.
func cooldownErr(until time.Time) *UserError {
	return &UserError{Key: KeyCooldown, Vars: []string{"when", render.Timestamp((until.UnixMilli() + 999) / 1000)},
		Err: fmt.Errorf("bot: challenge cooldown until %s", until.Format(time.RFC3339Nano))}
}
