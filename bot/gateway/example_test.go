package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/ttt-bot/bot/fakediscord"
	"github.com/tttbot/ttt-bot/bot/gateway"
)

// Example runs a shard against the fake Discord and decodes an interaction
// into discordgo's type.
func Example() {
	srv := fakediscord.New(nil, fakediscord.Options{})
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	sh, err := gateway.New(gateway.Config{
		Token:   srv.Token(),
		URL:     srv.GatewayURL(), // in production: the url of GET /gateway/bot
		Intents: int(discordgo.IntentsGuilds),
		Dispatch: func(event string, raw json.RawMessage) {
			switch event {
			case "READY":
				_ = srv.Dispatch("42", "INTERACTION_CREATE", map[string]any{
					"id": "1", "type": 2, "token": "t", "data": map[string]any{"name": "play"}})
			case "INTERACTION_CREATE":
				var ic discordgo.InteractionCreate
				if err := json.Unmarshal(raw, &ic); err != nil {
					fmt.Println(err)
				}
				fmt.Println(ic.ApplicationCommandData().Name)
				cancel()
			}
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sh.Run(ctx))
	// Output:
	// play
	// <nil>
}
