package bot_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/ai"
	"github.com/tttbot/ttt-bot/bot"
	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/bot/rest"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/persistence/redistest"
)

// stubDiscord records responses and can panic or fail on them.
type stubDiscord struct {
	mu        sync.Mutex
	responses []*discordgo.InteractionResponse
	panics    int // the next this many InteractionRespond calls panic
	followups []*discordgo.WebhookParams
}

func (s *stubDiscord) InteractionRespond(_ *discordgo.Interaction, resp *discordgo.InteractionResponse, _ ...discordgo.RequestOption) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.panics > 0 {
		s.panics--
		panic("stub: respond blew up")
	}
	s.responses = append(s.responses, resp)
	return nil
}

func (s *stubDiscord) InteractionResponseEdit(*discordgo.Interaction, *discordgo.WebhookEdit, ...discordgo.RequestOption) (*discordgo.Message, error) {
	return &discordgo.Message{}, nil
}

func (s *stubDiscord) FollowupMessageCreate(_ *discordgo.Interaction, _ bool, p *discordgo.WebhookParams, _ ...discordgo.RequestOption) (*discordgo.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.followups = append(s.followups, p)
	return &discordgo.Message{}, nil
}

func (s *stubDiscord) ApplicationCommandBulkOverwrite(string, string, []*discordgo.ApplicationCommand, ...discordgo.RequestOption) ([]*discordgo.ApplicationCommand, error) {
	return nil, nil
}

func stubBot(t *testing.T, dc rest.Discord) (*bot.Bot, *syncBuffer, *i18n.Catalog) {
	t.Helper()
	store := persistence.New(redistest.Client(t, redistest.Start(t)), persistence.Options{})
	cat, err := i18n.NewCatalog()
	if err != nil {
		t.Fatal(err)
	}
	signer, err := customid.NewSigner([]byte("unit-test-custom-id-key-01234567"))
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	b, err := bot.New(bot.Deps{Discord: dc, Store: store, Levels: ai.NewRegistry(), Catalog: cat, Signer: signer,
		Logger: slog.New(slog.NewTextHandler(logs, nil)), AppID: "1"}, bot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return b, logs, cat
}

func helpInteraction(id string) *discordgo.InteractionCreate {
	return &discordgo.InteractionCreate{Interaction: &discordgo.Interaction{
		ID: id, Type: discordgo.InteractionApplicationCommand, ChannelID: "7", GuildID: "42", Locale: discordgo.EnglishUS,
		Member: &discordgo.Member{User: &discordgo.User{ID: "100"}},
		Data: discordgo.ApplicationCommandInteractionData{Name: command.Name, Options: []*discordgo.ApplicationCommandInteractionDataOption{
			{Name: command.SubHelp, Type: discordgo.ApplicationCommandOptionSubCommand},
		}},
	}}
}

// TestHandleInteractionRecovers checks that a panic while handling is
// recovered and logged and the user still gets an answer, and that a panic
// while answering does not escape either.
func TestHandleInteractionRecovers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		panics    int
		responses int
	}{
		{"handler panics once", 1, 1},
		{"the error reply panics too", 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dc := &stubDiscord{panics: tc.panics}
			b, logs, cat := stubBot(t, dc)
			b.HandleInteraction(context.Background(), helpInteraction("9001"))
			if !strings.Contains(logs.String(), "panic in interaction handler") {
				t.Fatalf("panic not logged:\n%s", logs)
			}
			if len(dc.responses) != tc.responses {
				t.Fatalf("%d responses, want %d", len(dc.responses), tc.responses)
			}
			if tc.responses > 0 {
				got := dc.responses[0]
				if got.Data.Content != cat.Text(i18n.DefaultLocale, render.KeyInternal) || got.Data.Flags != discordgo.MessageFlagsEphemeral {
					t.Fatalf("reply %+v, want the ephemeral internal-error text", got.Data)
				}
				if strings.Contains(got.Data.Content, "stub") {
					t.Fatal("internal details shown to the user")
				}
			}
		})
	}
}

// TestHandleInteractionOnce checks that one interaction ID is answered
// once, however often it is delivered.
func TestHandleInteractionOnce(t *testing.T) {
	t.Parallel()
	dc := &stubDiscord{}
	b, _, cat := stubBot(t, dc)
	for range 3 {
		b.HandleInteraction(context.Background(), helpInteraction("9002"))
	}
	if len(dc.responses) != 1 || dc.responses[0].Data.Content != cat.Text(i18n.DefaultLocale, "help.text") {
		t.Fatalf("responses %+v, want the help text once", dc.responses)
	}
}

// TestNewChecksDeps checks that New refuses missing dependencies.
func TestNewChecksDeps(t *testing.T) {
	t.Parallel()
	if _, err := bot.New(bot.Deps{}, bot.Options{}); !errors.Is(err, bot.ErrConfig) {
		t.Fatalf("New with nothing: %v, want ErrConfig", err)
	}
}
