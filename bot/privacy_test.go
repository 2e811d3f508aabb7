package bot

import (
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/persistence"
)

// privacyMessages are the messages of /ttt privacy, /ttt forget-me and
// /ttt-admin forget-server in loc, by golden file name.
func privacyMessages(t *testing.T, loc discordgo.Locale) map[string]*discordgo.InteractionResponseData {
	t.Helper()
	r := testRenderer(t)
	me, err := r.ForgetMeConfirm(loc, alice)
	if err != nil {
		t.Fatal(err)
	}
	server, err := r.ForgetServerConfirm(loc, "900", alice)
	if err != nil {
		t.Fatal(err)
	}
	defaults := render.PrivacyInfoOf(persistence.New(nil, persistence.Options{}).Retention())
	trimmed := defaults
	trimmed.CorpusGames = 100000
	aged := trimmed
	aged.CorpusDays = 180
	return map[string]*discordgo.InteractionResponseData{
		"privacy-defaults":      r.Privacy(loc, defaults),
		"privacy-trimmed":       r.Privacy(loc, trimmed),
		"privacy-aged":          r.Privacy(loc, aged),
		"forget-me-confirm":     me,
		"forget-working":        r.Forgetting(loc),
		"forget-me-report":      r.ForgetMeReport(loc, forgetMeSample()),
		"forget-me-nothing":     r.ForgetMeReport(loc, persistence.ForgetReport{}),
		"forget-server-confirm": server,
		"forget-server-report":  r.ForgetServerReport(loc, forgetServerSample()),
		"forget-server-nothing": r.ForgetServerReport(loc, persistence.ForgetReport{}),
	}
}

// forgetMeSample is a report of a user's deletion with every kind.
func forgetMeSample() persistence.ForgetReport {
	return persistence.ForgetReport{Stats: 3, PuzzleStats: 2, Leaderboards: 4, History: 57, Games: 2, Archives: 57,
		Mentions: 31, Reviews: 5, Corpus: 57, Blocks: 3, Audit: 1, Ended: []*persistence.Session{{}}}
}

// forgetServerSample is a report of a server's deletion; there were no
// games in play.
func forgetServerSample() persistence.ForgetReport {
	return persistence.ForgetReport{Stats: 40, PuzzleStats: 12, Leaderboards: 2, Puzzles: 3, Archives: 250, History: 480,
		Reviews: 17, Settings: 4, Audit: 25}
}

func TestRenderPrivacyGolden(t *testing.T) {
	for _, loc := range goldenLocales {
		for name, d := range privacyMessages(t, loc) {
			t.Run(string(loc)+"/"+name, func(t *testing.T) {
				checked(t, d)
				if d.Flags&discordgo.MessageFlagsEphemeral == 0 {
					t.Error("the message is not private")
				}
				if strings.Contains(d.Content, "[[") || strings.Contains(d.Content, "{") {
					t.Errorf("a key or placeholder is missing: %q", d.Content)
				}
				goldenFile(t, name+"."+string(loc)+".json", wireJSON(t, d))
			})
		}
	}
}

// TestRenderPrivacyDefaults checks that /ttt privacy tells the Store's
// real retention: games kept for their boards 7 days, histories 90 days.
func TestRenderPrivacyDefaults(t *testing.T) {
	info := render.PrivacyInfoOf(persistence.New(nil, persistence.Options{}).Retention())
	if info.FinishedDays != 7 || info.HistoryDays != 90 || info.HistoryLimit != 200 || info.CorpusDays != 0 {
		t.Fatalf("render.PrivacyInfo %+v, want 7 and 90 days, 200 games, no corpus age", info)
	}
	d := testRenderer(t).Privacy(discordgo.EnglishUS, info)
	for _, want := range []string{"90 days", "7 days", "/ttt forget-me", "/ttt-admin forget-server", "/ttt history"} {
		if !strings.Contains(d.Content, want) {
			t.Errorf("privacy text lacks %q:\n%s", want, d.Content)
		}
	}
}

// TestRenderForgetButtons checks the confirmation buttons: red, owned by
// the user who asked, naming them (or their server) in the game field.
func TestRenderForgetButtons(t *testing.T) {
	r := testRenderer(t)
	s := testSigner(t)
	me, err := r.ForgetMeConfirm(discordgo.EnglishUS, alice)
	if err != nil {
		t.Fatal(err)
	}
	server, err := r.ForgetServerConfirm(discordgo.EnglishUS, "900", bob)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		d      *discordgo.InteractionResponseData
		action customid.Action
		game   persistence.GameID
		owner  string
	}{
		{me, customid.ActionForgetMe, persistence.GameID(alice + ".me"), alice},
		{server, customid.ActionForgetServer, "900.server", bob},
	} {
		row := tc.d.Components[0].(discordgo.ActionsRow)
		b := row.Components[0].(discordgo.Button)
		id, err := s.Decode(b.CustomID)
		if err != nil || id.Action != tc.action || id.Game != tc.game || id.Owner != tc.owner || b.Style != discordgo.DangerButton {
			t.Errorf("button %+v decodes to %+v (%v); want a red %s for %s owned by %s", b, id, err, tc.action, tc.game, tc.owner)
		}
	}
	for _, d := range []*discordgo.InteractionResponseData{r.ForgetMeReport(discordgo.EnglishUS, forgetMeSample()), r.Forgetting(discordgo.EnglishUS)} {
		if d.Components == nil || len(d.Components) != 0 {
			t.Errorf("%q has components %v; want them cleared", d.Content, d.Components)
		}
	}
}
