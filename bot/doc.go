// Package bot is the Discord side of ttt-bot: the application commands,
// interaction routing, rendering, permissions, localisation and transports.
//
// The foundations in this package are pure functions with no network, no
// clock and no global state:
//
//   - Commands builds the application-command definitions, with name and
//     description localisations, and ParseCommand turns the option data of a
//     slash-command interaction into a typed command.Request, or a *UserError that
//     the i18n.Catalog renders in the user's language.
//   - customid.Signer encodes and decodes the custom IDs of board buttons: the game,
//     the move number the board showed and the cell, signed with a truncated
//     HMAC so forged and malformed IDs are rejected.
//   - i18n.Catalog holds the localised texts (English, Brazilian Portuguese and
//     Greek), embedded from locales/*.json.
//   - render.Renderer turns a persistence.Session into the exact
//     discordgo.InteractionResponseData sent to Discord: the board as a grid
//     of buttons, challenges, and short ephemeral replies. render.CheckMessage
//     verifies Discord's size limits.
//
// Around them, Bot handles interactions through a Store and the AI levels.
// The networks the neural and humanlike levels play are kept current by a
// ModelWatcher (the model registry's versions, hot-swapped as they are
// published or rolled back, else the shipped weights); /ttt-admin model
// shows and rolls them back, and /ttt-admin retrain runs the retrain job
// (package retrain) in the RunSweeper loop, editing its message with
// the progress and ending it with a report embed and a PNG chart.
package bot
