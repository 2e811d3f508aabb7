package bot

import (
	"context"
	"fmt"
	"strconv"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/settings"
)

// Keys of the refusals of the server's limits on live games.
const (
	// KeyChannelGames refuses a game in a channel that already has the
	// server's most live games (settings.Server.ChannelGames).
	KeyChannelGames = "reply.channel_games"
	// KeyUserGames refuses a game to a player who already has the
	// server's most live games per player (settings.Server.UserGames).
	KeyUserGames = "reply.user_games"
)

// checkGameLimits refuses a game that would pass the server's limits on
// games per channel and per player (settings.Server.ChannelGames, UserGames).
// Live games are open challenges and games in play, AI duels included;
// the Store counts them in Redis (so every replica sees the same), reading
// about as many games as the limit.
//
// Accepting or joining a challenge adds no game to the channel (the
// challenge already counts there), so only the player's limit applies to
// it. Two games started at the same instant may both pass a limit that
// has room for one (see persistence.ChannelGames).
func (b *Bot) checkGameLimits(ctx context.Context, c *call, st settings.Server) error {
	if limit := st.ChannelGames; limit > 0 && !b.joins(c) {
		n, err := b.store.ChannelGames(ctx, c.i.ChannelID, limit)
		if err != nil {
			return err
		}
		if n >= limit {
			return &UserError{Key: KeyChannelGames, Vars: []string{"count", strconv.Itoa(limit)},
				Err: fmt.Errorf("bot: channel %s has %d live games, the server's limit", c.i.ChannelID, n)}
		}
	}
	if limit := st.UserGames; limit > 0 {
		n, err := b.store.UserGames(ctx, c.i.GuildID, c.user, limit)
		if err != nil {
			return err
		}
		if n >= limit {
			return &UserError{Key: KeyUserGames, Vars: []string{"count", strconv.Itoa(limit)},
				Err: fmt.Errorf("bot: user %s has %d live games in guild %s, the server's limit", c.user, n, c.i.GuildID)}
		}
	}
	return nil
}

// joins reports whether c is a click on Accept or Join of a challenge.
func (b *Bot) joins(c *call) bool {
	if c.i.Type != discordgo.InteractionMessageComponent {
		return false
	}
	id, err := b.signer.Decode(c.i.MessageComponentData().CustomID)
	return err == nil && (id.Action == customid.ActionAccept || id.Action == customid.ActionJoin)
}
