package bot

import (
	"context"

	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// challenge posts a challenge to a user, or to anyone.
func (b *Bot) challenge(ctx context.Context, c *call, r command.ChallengeRequest) error {
	side := game.X
	if r.First == command.FirstOther || r.First == command.FirstRandom && !b.coin() {
		side = game.O
	}
	var players [2]persistence.Seat
	players[seatIndex(side)] = persistence.Seat{User: c.user}
	players[seatIndex(side.Other())] = persistence.Seat{User: r.Opponent}
	return b.postChallenge(ctx, c, command.RulesKey(r.Rules, r.Wide), r.Swap, players, side)
}

// postChallenge creates a challenge from the player on side and posts it
// as a new message.
func (b *Bot) postChallenge(ctx context.Context, c *call, rules string, swap bool, players [2]persistence.Seat, side game.Mark) error {
	st, err := b.settings(ctx, c, c.i.GuildID)
	if err != nil {
		return err
	}
	s, err := b.createChallenge(ctx, c, persistence.Session{
		Rules: rules, Swap: swap, Players: players, Challenger: side, Status: persistence.StatusOpen, Guild: c.i.GuildID,
		TurnTime: st.TurnTime, GameTime: st.GameTime, Expiry: st.StoreExpiry(),
	})
	if err != nil {
		return err
	}
	data, err := b.render.Challenge(c.pub, s, "")
	if err != nil {
		return err
	}
	if err := b.respond(ctx, c, respMessage, data); err != nil {
		return err
	}
	b.track(ctx, c, s, respMessage, data)
	return nil
}

// answerChallenge handles the buttons of a challenge: Accept and Decline
// (for the challenged user), Join (for anyone else, when open to all) and
// Cancel (for the challenger). An accepted challenge becomes the board.
func (b *Bot) answerChallenge(ctx context.Context, c *call, id customid.ID) error {
	s, err := b.store.Game(ctx, id.Game)
	if err != nil {
		return err
	}
	if s.Status != persistence.StatusOpen {
		return userErr(render.KeyExpired)
	}
	challenger := s.Seat(s.Challenger).User
	opponent := s.Seat(s.Challenger.Other()).User
	switch {
	case id.Action == customid.ActionCancel && c.user != challenger:
		return userErr(render.KeyOnlyChallenger)
	case id.Action == customid.ActionJoin && c.user == challenger:
		return userErr(render.KeyOwnChallenge)
	case (id.Action == customid.ActionAccept || id.Action == customid.ActionDecline) && c.user != opponent:
		return userErr(render.KeyOnlyOpponent)
	case id.Action == customid.ActionJoin && opponent != "":
		return userErr(render.KeyInvalidButton) // a Join button on a direct challenge: not ours
	}
	if err := b.checkJoin(ctx, c, id.Action, challenger); err != nil {
		return err
	}
	if id.Action == customid.ActionAccept || id.Action == customid.ActionJoin {
		if _, err := b.mayPlay(ctx, c); err != nil {
			return err
		}
	}
	if id.Action == customid.ActionCancel || id.Action == customid.ActionDecline {
		next, err := retry(func() (*persistence.Session, error) { return b.store.Decline(ctx, id.Game, 0, c.user) })
		if err != nil {
			return err
		}
		data, err := b.render.Challenge(c.pub, next, c.user)
		if err != nil {
			return err
		}
		return b.respond(ctx, c, respUpdate, data)
	}
	next, err := retry(func() (*persistence.Session, error) { return b.store.Accept(ctx, id.Game, 0, c.user) })
	if err != nil {
		return err
	}
	return b.showBoard(ctx, c, next, respUpdate, nil)
}
