package render

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/customid"
	"github.com/tttbot/ttt-bot/bot/tourney"
	"github.com/tttbot/ttt-bot/chart"
	"github.com/tttbot/ttt-bot/persistence"
	"github.com/tttbot/ttt-bot/tournament"
)

// colorTournament is the embed colour of a tournament's standings.
const colorTournament = 0xf1c40f

// TournamentPictureName is the file name of a finished tournament's
// picture (its bracket or standings), attached to the final message.
const TournamentPictureName = "tournament.png"

// entrantName shows a tournament player: a mention, or a computer level.
func (r *Renderer) entrantName(loc discordgo.Locale, id string) string {
	if level, ok := strings.CutPrefix(id, "ai:"); ok {
		return r.cat.Text(loc, "player.ai", "level", r.LevelText(loc, level))
	}
	if strings.HasPrefix(id, persistence.ForgottenPrefix) || id == persistence.ForgottenUser {
		return r.cat.Text(loc, "player.forgotten")
	}
	return Mention(id)
}

// formatText names a tournament format.
func (r *Renderer) formatText(loc discordgo.Locale, format string) string {
	return r.cat.Text(loc, "choice.format."+format)
}

// TournamentInfo is the line of a tournament's settings: format, board,
// rounds, time per move and whether it is rated.
func (r *Renderer) TournamentInfo(loc discordgo.Locale, t *persistence.Tournament) string {
	rules := r.boardRulesText(loc, t.Rules)
	rounds := t.Rounds
	if rounds == 0 {
		if f, err := tourney.EngineFormat(t.Format); err == nil {
			rounds = f.Rounds(max(len(t.Players), command.MinTournamentPlayers), t.Double)
		}
	}
	rated := r.cat.Text(loc, "tournament.unrated")
	if t.Rated {
		rated = r.cat.Text(loc, "tournament.rated")
	}
	return r.cat.Text(loc, "tournament.info", "format", r.formatText(loc, t.Format), "rules", rules,
		"rounds", r.cat.Plural(loc, "count.rounds", rounds), "turn", r.cat.Duration(loc, t.TurnTime), "rated", rated)
}

// TournamentSignup renders a tournament's sign-up message: its name and
// settings, when sign-up closes, the players so far, and Join and Leave
// buttons while it is open.
func (r *Renderer) TournamentSignup(loc discordgo.Locale, t *persistence.Tournament) (*discordgo.InteractionResponseData, error) {
	lines := []string{r.cat.Text(loc, "tournament.title", "name", t.Name), r.TournamentInfo(loc, t)}
	switch {
	case t.Status == persistence.TournamentSignup && !t.StartAt.IsZero():
		lines = append(lines, r.cat.Text(loc, "tournament.signup_open", "start", Timestamp(t.StartAt.Unix())))
	case t.Status == persistence.TournamentSignup:
		lines = append(lines, r.cat.Text(loc, "tournament.signup_manual", "creator", Mention(t.Creator)))
	case t.Status == persistence.TournamentCancelled:
		lines = append(lines, r.cat.Text(loc, "tournament.state.cancelled"))
	default:
		lines = append(lines, r.cat.Text(loc, "tournament.started"))
	}
	if len(t.Players) == 0 {
		lines = append(lines, r.cat.Text(loc, "tournament.no_players"))
	} else {
		names := make([]string, len(t.Players))
		for i, p := range t.Players {
			names[i] = r.entrantName(loc, p.ID)
		}
		lines = append(lines, r.cat.Plural(loc, "tournament.players", len(t.Players), "players", strings.Join(names, " ")))
	}
	d := &discordgo.InteractionResponseData{Content: truncate(strings.Join(lines, "\n"), MaxContentLen), AllowedMentions: NoMentions()}
	if t.Status != persistence.TournamentSignup {
		d.Components = []discordgo.MessageComponent{}
		return d, nil
	}
	row := make([]discordgo.MessageComponent, 0, 2)
	for _, b := range []struct {
		key   string
		move  int
		style discordgo.ButtonStyle
	}{{"button.join", 1, discordgo.SuccessButton}, {"button.leave", 0, discordgo.SecondaryButton}} {
		id, err := r.signer.Encode(customid.ID{Action: customid.ActionTournament, Game: persistence.GameID(t.Guild + "." + t.ID), Move: b.move})
		if err != nil {
			return nil, fmt.Errorf("bot: render tournament %s: %w", t.ID, err)
		}
		row = append(row, discordgo.Button{CustomID: id, Style: b.style, Label: truncate(r.cat.Text(loc, b.key), MaxButtonLabelLen)})
	}
	d.Components = []discordgo.MessageComponent{discordgo.ActionsRow{Components: row}}
	return d, nil
}

// TournamentCreated answers, privately, the moderator who created t: that
// it was created, where its sign-up message is (a link to it), and how it
// starts: at its start time, as a Discord timestamp each client shows in
// its reader's zone, or when a moderator runs /ttt-tournament start.
func (r *Renderer) TournamentCreated(loc discordgo.Locale, t *persistence.Tournament) *discordgo.InteractionResponseData {
	signup := "<#" + t.Channel + ">"
	if t.Message != "" {
		signup = MessageLink(t.Guild, t.Channel, t.Message)
	}
	if t.StartAt.IsZero() {
		return Ephemeral(r.cat.Text(loc, "reply.tournament_created_manual", "name", t.Name, "signup", signup))
	}
	return Ephemeral(r.cat.Text(loc, "reply.tournament_created", "name", t.Name, "signup", signup,
		"start", "<t:"+strconv.FormatInt(t.StartAt.Unix(), 10)+":F>"))
}

// MessageLink is the link to a message in a server's channel, which
// Discord shows as the channel and a jump to the message.
func MessageLink(guild, channel, message string) string {
	return "https://discord.com/channels/" + guild + "/" + channel + "/" + message
}

// TournamentBusyForfeit tells a tournament's channel that a player lost
// pairing p by forfeit, having stayed in another game in the channel
// (p.BusyForfeit); it pings both players.
func (r *Renderer) TournamentBusyForfeit(loc discordgo.Locale, t *persistence.Tournament, p persistence.Pairing) *discordgo.InteractionResponseData {
	opponent := p.X
	if p.BusyForfeit == p.X {
		opponent = p.O
	}
	var users []string
	for _, id := range []string{p.BusyForfeit, opponent} {
		if customid.Snowflake(id) {
			users = append(users, id)
		}
	}
	return &discordgo.InteractionResponseData{
		Content: r.cat.Text(loc, "tournament.busy_forfeit", "name", t.Name, "round", r.cat.Number(loc, p.Round),
			"player", r.entrantName(loc, p.BusyForfeit), "opponent", r.entrantName(loc, opponent), "wait", r.cat.Duration(loc, tourney.BusyPatience(t))),
		AllowedMentions: &discordgo.MessageAllowedMentions{Users: users},
	}
}

// TournamentRound renders the announcement of a round: its number and the
// players pinged to their games, and the byes. The boards follow as
// messages of their own.
func (r *Renderer) TournamentRound(loc discordgo.Locale, t *persistence.Tournament, round int) *discordgo.InteractionResponseData {
	var pinged []string
	var users []string
	var byes []string
	for _, p := range t.Games {
		if p.Round != round {
			continue
		}
		if p.Bye() {
			byes = append(byes, r.cat.Text(loc, "tournament.bye", "player", r.entrantName(loc, p.X)))
			continue
		}
		for _, id := range []string{p.X, p.O} {
			pinged = append(pinged, r.entrantName(loc, id))
			if !strings.HasPrefix(id, "ai:") {
				users = append(users, id)
			}
		}
	}
	lines := []string{r.cat.Text(loc, "tournament.round", "name", t.Name, "round", r.cat.Number(loc, round),
		"rounds", r.cat.Number(loc, t.Rounds), "players", strings.Join(pinged, " "))}
	lines = append(lines, byes...)
	return &discordgo.InteractionResponseData{Content: truncate(strings.Join(lines, "\n"), MaxContentLen),
		AllowedMentions: &discordgo.MessageAllowedMentions{Users: users}}
}

// halfPoints writes points in halves the way a crosstable does: 3½, ½, 2.
func halfPoints(p float64) string {
	whole := int(math.Floor(p))
	switch half := p-float64(whole) >= 0.5; {
	case half && whole == 0:
		return "½"
	case half:
		return strconv.Itoa(whole) + "½"
	}
	return strconv.Itoa(whole)
}

// tieBreak writes a Sonneborn-Berger score, a multiple of a quarter: in
// halves where it is one (3½), else with two decimals for the locale.
func (r *Renderer) tieBreak(loc discordgo.Locale, v float64) string {
	if v*2 == math.Trunc(v*2) {
		return halfPoints(v)
	}
	return r.cat.Decimal(loc, v, 2)
}

// command.TournamentStandings renders a Swiss or round-robin tournament's
// standings after round: rank, player, points and the two tie-breaks.
func (r *Renderer) TournamentStandings(loc discordgo.Locale, t *persistence.Tournament, round int, st []tournament.Standing) *discordgo.InteractionResponseData {
	var lines []string
	size := 0
	for i, s := range st {
		line := r.cat.Text(loc, "tournament.standings_line", "rank", r.cat.Number(loc, s.Rank),
			"player", r.entrantName(loc, s.Player.ID), "points", halfPoints(s.Points),
			"buchholz", halfPoints(s.Buchholz), "sb", r.tieBreak(loc, s.SonnebornBerger))
		if size+len([]rune(line))+1 > MaxEmbedDescLen-8 {
			// The rest (of up to 64) is in the final picture; whole lines
			// only, never a mention cut in two.
			lines = append(lines, "… +"+r.cat.Number(loc, len(st)-i))
			break
		}
		lines = append(lines, line)
		size += len([]rune(line)) + 1
	}
	e := &discordgo.MessageEmbed{
		// Titles show no Markdown: the bold the message texts use goes.
		Title:       truncate(strings.ReplaceAll(r.cat.Text(loc, "tournament.standings_title", "name", t.Name, "round", r.cat.Number(loc, round)), "**", ""), MaxEmbedTitleLen),
		Description: truncate(strings.Join(lines, "\n"), MaxEmbedDescLen),
		Color:       colorTournament,
	}
	return &discordgo.InteractionResponseData{Embeds: []*discordgo.MessageEmbed{e}, AllowedMentions: NoMentions()}
}

// TournamentFinal renders the message that ends a tournament: the
// champion, the podium, the legend of the picture's seed numbers, and
// the picture (the bracket of an elimination, the standings table of the
// others) as a PNG to attach as TournamentPictureName.
func (r *Renderer) TournamentFinal(loc discordgo.Locale, t *persistence.Tournament, podium []string, picture []byte) *discordgo.InteractionResponseData {
	title := r.cat.Text(loc, "tournament.title", "name", t.Name)
	if t.Status == persistence.TournamentFinished {
		title = r.cat.Text(loc, "tournament.final_title", "name", t.Name)
	}
	lines := []string{title}
	if len(podium) > 0 {
		lines = append(lines, r.cat.Text(loc, "tournament.champion", "player", r.entrantName(loc, podium[0]), "name", t.Name))
	}
	if len(podium) >= 3 {
		lines = append(lines, r.cat.Text(loc, "tournament.podium", "first", r.entrantName(loc, podium[0]),
			"second", r.entrantName(loc, podium[1]), "third", r.entrantName(loc, podium[2])))
	}
	var legend []string
	for i, p := range t.Players {
		legend = append(legend, "#"+strconv.Itoa(i+1)+" "+r.entrantName(loc, p.ID))
	}
	d := &discordgo.InteractionResponseData{Content: truncate(strings.Join(lines, "\n"), MaxContentLen), AllowedMentions: NoMentions()}
	if len(legend) > 0 {
		// The legend of the picture's seed numbers, in an embed: 64
		// players' mentions do not fit a message beside the podium.
		d.Embeds = []*discordgo.MessageEmbed{{Description: truncate(r.cat.Text(loc, "tournament.legend", "legend", strings.Join(legend, ", ")), MaxEmbedDescLen),
			Color: colorTournament}}
	}
	if len(picture) > 0 {
		d.Files = []*discordgo.File{{Name: TournamentPictureName, ContentType: "image/png", Reader: strings.NewReader(string(picture))}}
	}
	return d
}

// command.TournamentStatus renders /ttt-tournament status: the server's
// tournaments, a line each.
func (r *Renderer) TournamentStatus(loc discordgo.Locale, ts []*persistence.Tournament) *discordgo.InteractionResponseData {
	if len(ts) == 0 {
		return Ephemeral(r.cat.Text(loc, "tournament.none"))
	}
	var lines []string
	for _, t := range ts {
		var state string
		switch t.Status {
		case persistence.TournamentSignup:
			state = r.cat.Plural(loc, "tournament.state.signup", len(t.Players))
		case persistence.TournamentRunning:
			state = r.cat.Text(loc, "tournament.state.running", "round", r.cat.Number(loc, t.Round), "rounds", r.cat.Number(loc, t.Rounds))
		case persistence.TournamentFinished:
			state = r.cat.Text(loc, "tournament.state.finished")
		default:
			state = r.cat.Text(loc, "tournament.state.cancelled")
		}
		lines = append(lines, r.cat.Text(loc, "tournament.status_line", "name", t.Name, "format", r.formatText(loc, t.Format), "state", state))
	}
	d := Ephemeral(truncate(strings.Join(lines, "\n"), MaxContentLen))
	d.AllowedMentions = NoMentions()
	return d
}

// TournamentPicture draws a finished tournament: an elimination's bracket
// or the others' standings table, with players as seed numbers (their
// order of joining, as the legend says).
func TournamentPicture(t *persistence.Tournament, st []tournament.Standing) ([]byte, error) {
	seed := map[string]string{}
	for i, p := range t.Players {
		seed[p.ID] = "#" + strconv.Itoa(i+1)
	}
	if t.Format != command.FormatElimination {
		tb := chart.Table{Title: asciiTitle(t.Name), Header: []string{"#", "PLAYER", "PTS", "W-D-L", "BUCH", "SB"}, Highlight: 3}
		for _, s := range st {
			// The picture's font has no ½: points are written 2.5.
			tb.Rows = append(tb.Rows, []string{strconv.Itoa(s.Rank), seed[s.Player.ID], strconv.FormatFloat(s.Points, 'f', -1, 64),
				fmt.Sprintf("%d-%d-%d", s.Wins, s.Draws, s.Losses), strconv.FormatFloat(s.Buchholz, 'f', -1, 64),
				strconv.FormatFloat(s.SonnebornBerger, 'f', -1, 64)})
		}
		return chart.TablePNG(tb)
	}
	b, pr, err := playBracket(t)
	if err != nil {
		return nil, err
	}
	order := b.Order()
	label := func(s int) string {
		if s > len(b.Seeds) {
			return "BYE"
		}
		return seed[b.Seeds[s-1].ID]
	}
	won := map[string]map[int]bool{} // player -> rounds won
	for _, m := range pr.Decided {
		if won[m.Winner] == nil {
			won[m.Winner] = map[int]bool{}
		}
		won[m.Winner][m.Round] = true
	}
	br := chart.Bracket{Title: asciiTitle(t.Name)}
	var first []chart.Match
	for i := 0; i+1 < len(order); i += 2 {
		m := chart.Match{Top: label(order[i]), Bottom: label(order[i+1])}
		switch {
		case order[i] <= len(b.Seeds) && won[b.Seeds[order[i]-1].ID][1]:
			m.Winner = 1
		case order[i+1] <= len(b.Seeds) && won[b.Seeds[order[i+1]-1].ID][1]:
			m.Winner = 2
		}
		first = append(first, m)
	}
	br.Rounds = append(br.Rounds, first)
	for round := 2; round <= b.Rounds(); round++ {
		prev := br.Rounds[len(br.Rounds)-1]
		var ms []chart.Match
		for i := 0; i+1 < len(prev); i += 2 {
			top, bottom := winnerLabel(prev[i]), winnerLabel(prev[i+1])
			m := chart.Match{Top: top, Bottom: bottom}
			for id, rounds := range won {
				if rounds[round] && seed[id] == top {
					m.Winner = 1
				} else if rounds[round] && seed[id] == bottom {
					m.Winner = 2
				}
			}
			ms = append(ms, m)
		}
		br.Rounds = append(br.Rounds, ms)
	}
	return chart.BracketPNG(br)
}

// playBracket replays an elimination's record on its bracket (no coin is
// flipped: the record holds the flips made).
func playBracket(t *persistence.Tournament) (tournament.Bracket, tournament.Progress, error) {
	b, err := tournament.NewBracket(tourney.EnginePlayers(t))
	if err != nil {
		return b, tournament.Progress{}, err
	}
	pr, err := b.Play(tourney.EngineGames(t), nil)
	return b, pr, err
}

// winnerLabel is the label of a decided match's winner, "" before.
func winnerLabel(m chart.Match) string {
	switch m.Winner {
	case 1:
		return m.Top
	case 2:
		return m.Bottom
	}
	if m.Bottom == "BYE" || m.Bottom == "" {
		return m.Top
	}
	return ""
}

// asciiTitle keeps what the picture's font draws of a name (A-Z, digits,
// spaces and a little punctuation); the message carries the name whole.
func asciiTitle(name string) string {
	var b strings.Builder
	for _, c := range strings.ToUpper(name) {
		if c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(" -.#", c) {
			b.WriteRune(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// TournamentPodium lists the first three places of a finished tournament
// (fewer when it had fewer players): an elimination's champion, runner-up
// and the better-seeded losing semi-finalist; the others' top standings.
func TournamentPodium(t *persistence.Tournament, st []tournament.Standing) ([]string, error) {
	var out []string
	if t.Format != command.FormatElimination {
		for _, s := range st {
			if len(out) < 3 {
				out = append(out, s.Player.ID)
			}
		}
		return out, nil
	}
	_, pr, err := playBracket(t)
	if err != nil {
		return nil, err
	}
	for _, p := range pr.Placings {
		if len(out) < 3 {
			out = append(out, p.Player.ID)
		}
	}
	return out, nil
}
