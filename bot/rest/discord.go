// Package rest is the bot's side of Discord's REST API: the calls the bot
// makes (Discord), the retry of its own writes when Discord fails them
// for a moment (NewRetrying), the nonces and staleness checks those
// writes carry in their contexts, and the client that points a session at
// another API base URL (RedirectClient).
package rest

import (
	"github.com/bwmarrin/discordgo"
)

// Discord is the part of the Discord API the bot calls: answering
// interactions (the first response, later edits of it and follow-ups) and
// registering application commands. *discordgo.Session satisfies it; tests
// point a real session at bot/fakediscord. Every call takes
// discordgo.WithContext so that it honours the handler's deadline. A Bot
// wraps the Discord it is given so that its own writes (edits and posts)
// are retried when Discord fails them for a moment (see retryingDiscord).
type Discord interface {
	// InteractionRespond sends the first response to an interaction.
	InteractionRespond(interaction *discordgo.Interaction, resp *discordgo.InteractionResponse, options ...discordgo.RequestOption) error
	// InteractionResponseEdit edits the first response (after a deferral).
	InteractionResponseEdit(interaction *discordgo.Interaction, newresp *discordgo.WebhookEdit, options ...discordgo.RequestOption) (*discordgo.Message, error)
	// FollowupMessageCreate sends a further message for an interaction.
	FollowupMessageCreate(interaction *discordgo.Interaction, wait bool, data *discordgo.WebhookParams, options ...discordgo.RequestOption) (*discordgo.Message, error)
	// ApplicationCommandBulkOverwrite replaces the application's commands
	// in a guild, or globally for guild "".
	ApplicationCommandBulkOverwrite(appID string, guildID string, commands []*discordgo.ApplicationCommand, options ...discordgo.RequestOption) ([]*discordgo.ApplicationCommand, error)
	// ChannelMessageEditComplex edits a message the bot posted, text and
	// buttons: a board that changes after its interaction is over (a
	// timeout, a resignation by command, a moderator, an AI duel).
	ChannelMessageEditComplex(m *discordgo.MessageEdit, options ...discordgo.RequestOption) (*discordgo.Message, error)
	// ChannelMessageSendComplex posts a message outside any interaction:
	// a tournament's rounds, boards, standings and result.
	ChannelMessageSendComplex(channelID string, data *discordgo.MessageSend, options ...discordgo.RequestOption) (*discordgo.Message, error)
}

// The real session is what the bot runs on.
var _ Discord = (*discordgo.Session)(nil)
