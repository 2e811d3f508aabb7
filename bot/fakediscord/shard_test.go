package fakediscord_test

import (
	"sync"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/tttbot/ttt-bot/bot/fakediscord"
)

// TestShards routes each guild's interactions to the shard Discord would
// pick: (guild_id >> 22) % shard_count, DMs to shard 0.
func TestShards(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	srv := fakediscord.New(t, fakediscord.Options{})
	shards := make([]*bot, 2)
	t.Cleanup(func() { // discordgo's Close waits a second; close the shards together
		var wg sync.WaitGroup
		for _, b := range shards {
			if b != nil {
				wg.Add(1)
				go func() {
					defer wg.Done()
					closeSettled(srv, b.ses)
				}()
			}
		}
		wg.Wait()
	})
	for id := range shards {
		ses, err := srv.Session()
		if err != nil {
			t.Fatal(err)
		}
		ses.ShardID, ses.ShardCount = id, 2
		b := &bot{ses: ses, got: make(chan *discordgo.Interaction, 4)}
		ses.AddHandler(func(_ *discordgo.Session, i *discordgo.InteractionCreate) { b.got <- i.Interaction })
		if err := ses.Open(); err != nil {
			t.Fatal(err)
		}
		shards[id] = b
	}
	settle(t, srv, 2)
	registerPlay(t, srv, shards[0].ses)
	for _, tc := range []struct {
		guild string
		shard int
	}{{"4194304", 1}, {"8388608", 0}, {"", 0}} { // 1<<22 and 2<<22
		d, err := srv.Command(ctx, fakediscord.CommandSpec{Actor: fakediscord.Actor{Guild: tc.guild}, Name: "play"})
		if err != nil {
			t.Fatal(err)
		}
		if i := shards[tc.shard].next(t); i.ID != d.ID() {
			t.Fatalf("guild %q: shard %d got %s, want %s", tc.guild, tc.shard, i.ID, d.ID())
		}
	}
}
