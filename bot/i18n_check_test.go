package bot

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/command"
	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/render"
	"github.com/tttbot/ttt-bot/bot/settings"
)

// TestCatalogCheck is the catalog check over every locale. i18n.NewCatalog
// already refuses missing or extra keys, other placeholders and plural
// forms that are not the language's; this adds what a translator can get
// wrong while the data still loads:
//   - every one of Discord's 32 locales is shipped, and no other;
//   - each locale has a note on how it was translated and a glossary with
//     every term of en-US's;
//   - no text is left in English by mistake: a key whose text equals the
//     English (or, in a locale that falls back, its fallback's) must be
//     listed in "$same", and "$same" lists only such keys;
//   - command and option names follow Discord's rules in every script and
//     are unique;
//   - every text, rendered with the longest realistic values (18-digit
//     IDs, 32-character names, 25 channels, every language code), fits
//     Discord's limit for where it is shown;
//   - commands named in texts ("/ttt replay") are the locale's own names
//     of the subcommands, and the words /ttt-admin set parses (on, off,
//     none, 30s, 3x3k3, de, ...) are kept as they are in what it takes;
//   - a locale written in another script has no English word left in its
//     texts ("win in 3 ply"), and no locale but English keeps the English
//     example names (#games, @Players).
func TestCatalogCheck(t *testing.T) {
	c := testCatalog(t)
	want := i18n.DiscordLocales()
	slices.SortFunc(want, func(a, b discordgo.Locale) int {
		switch {
		case a == i18n.DefaultLocale:
			return -1
		case b == i18n.DefaultLocale:
			return 1
		}
		return strings.Compare(string(a), string(b))
	})
	if got := c.Locales(); !slices.Equal(got, want) {
		t.Errorf("locales %v, want Discord's %d: %v", got, len(want), want)
	}
	terms := c.Glossary(i18n.DefaultLocale)
	if len(terms) < 20 {
		t.Fatalf("en-US has %d glossary terms; want the game's terms", len(terms))
	}
	for _, loc := range c.Locales() {
		t.Run(string(loc), func(t *testing.T) {
			if n := utf8.RuneCountInString(c.Note(loc)); n < 40 {
				t.Errorf("$note is %d characters: say how the locale was translated and checked", n)
			}
			g := c.Glossary(loc)
			for _, term := range slices.Sorted(maps.Keys(terms)) {
				if strings.TrimSpace(g[term]) == "" {
					t.Errorf("$glossary has no word for %q", term)
				}
			}
			checkUntranslated(t, c, loc)
			checkNames(t, c, loc)
			checkLengths(t, c, loc)
			checkMentions(t, c, loc)
			checkTokens(t, c, loc)
			checkLatinWords(t, c, loc)
			checkExampleNames(t, c, loc)
		})
	}
}

// checkUntranslated: a text that is the same as the English one (or, in a
// locale that falls back, as its fallback's, which it then need not write)
// is intentional only if "$same" lists it.
func checkUntranslated(t *testing.T, c *i18n.Catalog, loc discordgo.Locale) {
	t.Helper()
	if loc == i18n.DefaultLocale {
		return
	}
	fb := c.Fallback(loc)
	for _, key := range c.Keys() {
		if fb != "" && !c.Own(loc, key) {
			continue // read from the fallback, which is checked itself
		}
		forms := c.Forms(loc, key)
		if fb != "" && maps.Equal(forms, c.Forms(fb, key)) {
			t.Errorf("%q repeats %s's text; leave it out and the fallback reads it", key, string(fb))
		}
		same := sameTexts(forms, c.Forms(i18n.DefaultLocale, key))
		switch {
		case same && !c.Intentional(loc, key):
			t.Errorf("%q is the English text %q: translate it, or list it in $same if that is right", key, forms["other"])
		case !same && c.Intentional(loc, key):
			t.Errorf("$same lists %q, but its text differs from the English", key)
		}
	}
}

// sameTexts reports whether every form of a is one of b's texts.
func sameTexts(a, b map[string]string) bool {
	for _, t := range a {
		if !slices.Contains(slices.Collect(maps.Values(b)), t) {
			return false
		}
	}
	return true
}

// checkNames: command and option names follow Discord's naming rules and
// no two commands, or two options, share a name in one locale. (The
// registered commands are checked level by level in TestCommandsValid.)
func checkNames(t *testing.T, c *i18n.Catalog, loc discordgo.Locale) {
	t.Helper()
	seen := map[string]string{}
	for _, key := range c.Keys() {
		kind, _, _ := strings.Cut(key, ".")
		if (kind != "cmd" && kind != "opt") || !strings.HasSuffix(key, ".name") {
			continue
		}
		name := c.Text(loc, key)
		if !command.ValidName(name) {
			t.Errorf("%q is %q: a name is 1-32 lower-case letters, digits, - or _", key, name)
		}
		if other, ok := seen[kind+"|"+name]; ok {
			t.Errorf("%q and %q are both %q", other, key, name)
		}
		seen[kind+"|"+name] = key
	}
}

// worst are the longest realistic values of placeholders; any other gets
// 32 characters, as long as a Discord name or an 18-digit mention.
func worst(c *i18n.Catalog, loc discordgo.Locale) map[string]string {
	long := func(prefix string) string {
		var best string
		for _, k := range c.Keys() {
			if t := c.Text(loc, k); strings.HasPrefix(k, prefix) && utf8.RuneCountInString(t) > utf8.RuneCountInString(best) {
				best = t
			}
		}
		return best
	}
	var levels []string
	for _, l := range command.Levels() {
		levels = append(levels, c.Text(loc, "level."+string(l)))
	}
	var boards []string
	for _, p := range settings.Presets() {
		boards = append(boards, c.Text(loc, "choice.board."+p.Key))
	}
	channels := strings.TrimSpace(strings.Repeat("<#123456789012345678> ", 25))
	cells := strings.TrimSuffix(strings.Repeat("**e5**, ", 25), ", ")
	return map[string]string{
		"boards":   strings.Join(boards, " · "),
		"channels": channels,
		"levels":   strings.Join(levels, ", "),
		"locales":  strings.Join(slicesOf(i18n.DiscordLocales()), ", "),
		"moves":    cells,
		"stage":    long("retrain.stage."),
		"setting":  long("setting."),
		"rules":    long("choice.board."),
		"summary":  strings.Repeat("w", 200),
		"line":     "5x5k4 " + strings.Repeat("e5 ", 25),
		"players":  strings.Repeat("w", 80),
		"signup":   render.MessageLink("123456789012345678", "123456789012345678", "123456789012345678"),
		"versions": strings.Repeat("v", 60),
	}
}

func slicesOf(locs []discordgo.Locale) []string {
	out := make([]string, len(locs))
	for i, l := range locs {
		out[i] = string(l)
	}
	return out
}

// keyLimit is the most characters Discord shows where key's text goes.
func keyLimit(key string) int {
	switch kind, rest, _ := strings.Cut(key, "."); {
	case (kind == "cmd" || kind == "opt") && strings.HasSuffix(rest, ".name"):
		return command.MaxCommandNameLen
	case (kind == "cmd" || kind == "opt") && strings.HasSuffix(rest, ".desc"):
		return command.MaxCommandDescLen
	case kind == "choice" || kind == "level" || kind == "setting":
		return command.MaxChoiceNameLen
	case kind == "button":
		return render.MaxButtonLabelLen
	case strings.HasPrefix(key, "retrain.field.") || key == "retrain.title" || key == "review.title" ||
		key == "review.story" || key == "review.share_name" || key == "settings.title":
		return render.MaxEmbedFieldName
	case kind == "retrain" || kind == "review" || strings.HasPrefix(key, "settings.takes."):
		return render.MaxEmbedFieldValue
	}
	return render.MaxContentLen
}

// checkLengths renders every form of every text with the worst values and
// holds it to its limit.
func checkLengths(t *testing.T, c *i18n.Catalog, loc discordgo.Locale) {
	t.Helper()
	vals := worst(c, loc)
	for _, key := range c.Keys() {
		for form, text := range c.Forms(loc, key) {
			var vars []string
			for _, p := range i18n.Placeholders(text) {
				v, ok := vals[p]
				if !ok {
					v = strings.Repeat("w", 32)
				}
				vars = append(vars, p, v)
			}
			if n, limit := utf8.RuneCountInString(i18n.Fill(text, vars)), keyLimit(key); n > limit {
				t.Errorf("%q (%s) is %d characters with the longest values; Discord shows %d there", key, form, n, limit)
			}
		}
	}
}

// commandMention matches a subcommand named in a text: "/ttt replay",
// "/ttt-tournament start" (any /ttt-<family> command).
var commandMention = regexp.MustCompile("/ttt(?:-[a-z]+)? ([^\\s`.,;:!?()\"“”«»「」。、]+)")

// checkMentions: the subcommands a text names are the ones the English
// text names, each by the locale's own name for it, so that what the text
// says is what the reader's client offers.
func checkMentions(t *testing.T, c *i18n.Catalog, loc discordgo.Locale) {
	t.Helper()
	byEnglish := map[string]string{} // English name -> the locale's
	for _, key := range c.Keys() {
		if strings.HasPrefix(key, "cmd.") && strings.HasSuffix(key, ".name") {
			byEnglish[c.Text(i18n.DefaultLocale, key)] = c.Text(loc, key)
		}
	}
	mentions := func(text string) []string {
		var out []string
		for _, m := range commandMention.FindAllStringSubmatch(text, -1) {
			out = append(out, m[1])
		}
		slices.Sort(out)
		return out
	}
	for _, key := range c.Keys() {
		var want []string
		for _, m := range mentions(c.Text(i18n.DefaultLocale, key)) {
			want = append(want, byEnglish[m])
		}
		slices.Sort(want)
		for form, text := range c.Forms(loc, key) {
			if got := mentions(text); !slices.Equal(got, want) {
				t.Errorf("%q (%s) names the subcommands %q; the English names %q, which are %q in %s", key, form, got,
					mentions(c.Text(i18n.DefaultLocale, key)), want, string(loc))
			}
		}
	}
}

// settingTokens are the words /ttt-admin set parses; where the English
// text of what a setting takes names one, every locale must keep it.
var settingTokens = []string{"on", "off", "none", "all", "default", "30s", "24h", "90s", "10m", "1h", "1m", "5m", "2m",
	"3x3k3", "4x4k3", "4x4k4", "5x5k4", "5x5k5", "4x3xox", "de", "pl", "ja", "es-419", "coordinates", "compact"}

// startTokens are the forms a tournament's start option takes, as the
// English texts about it show them.
var startTokens = []string{"1m", "7d", "30m", "2h", "1d", "<t:1796148000>", "2026-12-01T18:00Z", "2026-12-01 19:00+01:00"}

// tokenWords match each of settingTokens and startTokens as a word, compiled
// once (compiling them per locale and key cost most of the catalog check).
var tokenWords = func() map[string]*regexp.Regexp {
	m := map[string]*regexp.Regexp{}
	for _, tok := range append(slices.Clone(settingTokens), startTokens...) {
		m[tok] = regexp.MustCompile(`(^|[^\p{L}\p{N}-])` + regexp.QuoteMeta(tok) + `($|[^\p{L}\p{N}-])`)
	}
	return m
}()

func checkTokens(t *testing.T, c *i18n.Catalog, loc discordgo.Locale) {
	t.Helper()
	word := func(tok string) *regexp.Regexp { return tokenWords[tok] }
	for _, key := range c.Keys() {
		tokens := settingTokens
		switch {
		case strings.HasPrefix(key, "settings.takes."), strings.HasPrefix(key, "error.bad_setting."):
		case key == "error.bad_start", key == "opt.start.desc":
			tokens = startTokens
		default:
			continue
		}
		en, text := c.Text(i18n.DefaultLocale, key), c.Text(loc, key)
		for _, tok := range tokens {
			if re := word(tok); re.MatchString(en) && !re.MatchString(text) {
				t.Errorf("%q leaves out %q, a value the bot takes as it is written", key, tok)
			}
		}
	}
}

// nonLatinLocales are the locales written in a script other than Latin. In
// their texts a Latin word is English left behind by mistake, unless it is
// something the reader types or sees as it is (see checkLatinWords).
var nonLatinLocales = []discordgo.Locale{discordgo.Japanese, discordgo.ChineseCN, discordgo.ChineseTW,
	discordgo.Korean, discordgo.Thai, discordgo.Hindi, discordgo.Greek, discordgo.Bulgarian,
	discordgo.Russian, discordgo.Ukrainian}

// latinAllowed are the Latin words a non-Latin locale may write outside
// code spans, each with the locales that may ("" for every one): names
// (Discord, and the tie-breaks Buchholz and Sonneborn-Berger, which chess
// keeps in Latin letters), the abbreviation MCTS, and the words Greek
// writes in Latin script, as Discord's Greek client does (bot, and the
// level name minimax, which el keeps in Latin like its "$same" level
// names). Keep it short: a word added here is a word the check no longer
// sees in those locales.
var latinAllowed = map[string]string{
	"discord":          "",
	"buchholz":         "",
	"sonneborn-berger": "",
	"mcts":             "",
	"bot":              "el",
	"minimax":          "el",
}

// latinSkip matches what a text may write in Latin letters in any script:
// code spans, placeholders, Discord markup (<#1>, <@1>, <t:1:R>), the
// command names /ttt, /ttt-admin and /ttt-tournament (which are never
// translated), and the command line the review names (bot play -position).
var latinSkip = regexp.MustCompile("`[^`]*`|\\{[a-z_]+\\}|<[^<>]*>|/ttt(?:-[a-z]+)?|\\bbot play -position")

// latinToken matches a run of Latin letters and digits, hyphens inside;
// one with three letters in a row is a word.
var (
	latinToken = regexp.MustCompile(`[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*`)
	latinWord  = regexp.MustCompile(`[A-Za-z]{3}`)
	// boardNotation is a board preset or a line in X and O: 4x3xox, X-O-X.
	boardNotation = regexp.MustCompile(`^[0-9XxOo-]+$`)
)

// checkLatinWords: in a locale written in another script, no text has a
// Latin word that latinWords flags. Names of commands and options, checked
// by checkNames, and the keys "$same" lists are left out.
func checkLatinWords(t *testing.T, c *i18n.Catalog, loc discordgo.Locale) {
	t.Helper()
	if !slices.Contains(nonLatinLocales, loc) {
		return
	}
	for _, key := range c.Keys() {
		kind, _, _ := strings.Cut(key, ".")
		if ((kind == "cmd" || kind == "opt") && strings.HasSuffix(key, ".name")) || c.Intentional(loc, key) {
			continue
		}
		for form, text := range c.Forms(loc, key) {
			for _, w := range latinWords(loc, text) {
				t.Errorf("%q (%s) has the Latin word %q: translate it, put what the reader types in a code span, or allow it in latinAllowed", key, form, w)
			}
		}
	}
}

// latinWords returns the Latin words of three letters or more in text,
// outside what latinSkip removes, that are not a value the bot parses (on,
// off, none, 3x3k3, ...), board notation (X-O-X) or allowed in loc by
// latinAllowed.
func latinWords(loc discordgo.Locale, text string) []string {
	var out []string
	for _, tok := range latinToken.FindAllString(latinSkip.ReplaceAllString(text, " "), -1) {
		if !latinWord.MatchString(tok) || boardNotation.MatchString(tok) || slices.Contains(settingTokens, tok) {
			continue
		}
		if locs, ok := latinAllowed[strings.ToLower(tok)]; ok &&
			(locs == "" || slices.Contains(strings.Fields(locs), string(loc))) {
			continue
		}
		out = append(out, tok)
	}
	return out
}

// exampleName matches a channel or role name in an example: #games,
// @Players.
var exampleName = regexp.MustCompile(`[#@][\p{L}\p{N}_-]+`)

// sharedExamples are English example names that are words of some other
// languages too, with those locales: bot-zone is a Danish, German and
// Dutch compound as well.
var sharedExamples = map[string]string{
	"#bot-zone": "da de nl",
}

// checkExampleNames: the channel and role names the English texts give as
// examples (#games #bot-zone, @Players) are English; every other language
// gives names in its own words, as a server of its speakers would have.
func checkExampleNames(t *testing.T, c *i18n.Catalog, loc discordgo.Locale) {
	t.Helper()
	if strings.HasPrefix(string(loc), "en-") {
		return
	}
	for _, key := range c.Keys() {
		for form, text := range c.Forms(loc, key) {
			for _, name := range englishExamples(loc, c.Text(i18n.DefaultLocale, key), text) {
				t.Errorf("%q (%s) keeps the English example name %s: use a name in the language", key, form, name)
			}
		}
	}
}

// englishExamples returns the example names of the English text en that
// loc's text keeps, but for those sharedExamples allows in loc.
func englishExamples(loc discordgo.Locale, en, text string) []string {
	var out []string
	names := exampleName.FindAllString(text, -1)
	for _, name := range exampleName.FindAllString(en, -1) {
		if slices.Contains(names, name) && !slices.Contains(strings.Fields(sharedExamples[name]), string(loc)) {
			out = append(out, name)
		}
	}
	return out
}

// TestCatalogCheckWords pins what the checks for English left behind flag,
// with the slips they were written for (th "ชนะใน 3 ply", #games and
// @Players in the settings help) and what they must let through.
func TestCatalogCheckWords(t *testing.T) {
	latin := []struct {
		loc  discordgo.Locale
		text string
		want []string
	}{
		{discordgo.Thai, "ชนะใน {plies} ply", []string{"ply"}},
		{discordgo.Thai, "เล่นโอเอ็กซ์ (tic-tac-toe) และแบบกระดานใหญ่กว่า", []string{"tic-tac-toe"}},
		{discordgo.Thai, "รอบฝึกที่ {n} จาก {of}: loss {loss}", []string{"loss"}},
		{discordgo.Japanese, "チャンネルのメンション（例: #games #bot-zone、最大25個）、または `all`。", []string{"games", "bot-zone"}},
		{discordgo.ChineseCN, "一个身份组提及，如 @Players；或 `none`。", []string{"Players"}},
		{discordgo.Russian, "Бот (bot) занят", []string{"bot"}},
		{discordgo.Greek, "Το bot δεν απαντά· γράψτε none ή off.", nil},
		{discordgo.Thai, "วางใน `bot play -position`", nil},
		{discordgo.Korean, "/ttt 컴퓨터대전 명령어의 국면 옵션이나 bot play -position에 붙여 넣으세요.", nil},
		{discordgo.Hindi, "`/ttt-admin पुनः-प्रशिक्षण` को `बलपूर्वक:True` के साथ", nil},
		{discordgo.Russian, "командой /ttt-tournament начать", nil},
		{discordgo.Japanese, "`{rank}.` {player} · Buchholz {buchholz} · Sonneborn-Berger {sb}", nil},
		{discordgo.Ukrainian, "X-O-X (4x3): O-X-O, <t:1796148000:R>, <#123>, Discord ID, MCTS, 5x5k4", nil},
	}
	for _, tt := range latin {
		if got := latinWords(tt.loc, tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("latinWords(%s, %q) = %q, want %q", tt.loc, tt.text, got, tt.want)
		}
	}
	const en = "Channel mentions, like #games #bot-zone, up to 25; or all. One role mention, like @Players."
	examples := []struct {
		loc  discordgo.Locale
		text string
		want []string
	}{
		{discordgo.Swedish, "t.ex. #games #bot-zone, @Players", []string{"#games", "#bot-zone", "@Players"}},
		{discordgo.German, "wie #partien #bot-zone; wie @Spieler", nil},
		{discordgo.French, "comme #parties #bot-zone", []string{"#bot-zone"}},
		{discordgo.Japanese, "例: #対局 #ボット部屋、@プレイヤー", nil},
	}
	for _, tt := range examples {
		if got := englishExamples(tt.loc, en, tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("englishExamples(%s, %q) = %q, want %q", tt.loc, tt.text, got, tt.want)
		}
	}
}
