package fakediscord_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/ttt-bot/bot/fakediscord"
)

// Example registers a command with a discordgo session pointed at the fake,
// then plays a user who runs it against a bot in HTTP interactions mode.
// A gateway bot is the same, minus SetInteractionsURL plus session.Open.
func Example() {
	srv := fakediscord.New(nil, fakediscord.Options{})
	defer srv.Close()

	ses, _ := discordgo.New("Bot " + srv.Token())
	ses.Client = srv.Client() // every discord.com request goes to the fake
	_, err := ses.ApplicationCommandBulkOverwrite(srv.AppID(), "", []*discordgo.ApplicationCommand{
		{Name: "play", Description: "Start a game"},
	})
	fmt.Println("registered:", err == nil, srv.Commands("")[0].Name)

	bot := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !discordgo.VerifyInteraction(r, srv.PublicKey()) {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		var i discordgo.Interaction
		_ = json.NewDecoder(r.Body).Decode(&i)
		resp := discordgo.InteractionResponse{Type: discordgo.InteractionResponsePong}
		if i.Type == discordgo.InteractionApplicationCommand {
			resp = discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
				Data: &discordgo.InteractionResponseData{Content: "Your move, " + i.Member.User.Username}}
		}
		_ = json.NewEncoder(w).Encode(resp)
	}))
	defer bot.Close()
	fmt.Println("endpoint verified:", srv.VerifyEndpoint(context.Background(), bot.URL) == nil)
	srv.SetInteractionsURL(bot.URL)

	d, _ := srv.Command(context.Background(), fakediscord.CommandSpec{
		Actor: fakediscord.Actor{Guild: "1", Channel: "2", User: fakediscord.User{ID: "3", Username: "carol"}},
		Name:  "play",
	})
	r, err := d.Wait(context.Background())
	fmt.Println(r.Kind, r.Type, r.Message.Content, err)
	fmt.Println(len(srv.Visible("2", "3")), "message in the channel")
	// Output:
	// registered: true play
	// endpoint verified: true
	// callback 4 Your move, carol <nil>
	// 1 message in the channel
}
