package command

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tttbot/ttt-bot/bot/i18n"
	"github.com/tttbot/ttt-bot/bot/settings"
	"github.com/tttbot/ttt-bot/persistence"
)

// The tournament formats as stored and as the create command takes them.
const (
	FormatSwiss       = "swiss"
	FormatElimination = "single-elimination"
	FormatRoundRobin  = "round-robin"
)

// Tournament limits.
const (
	// MinTournamentPlayers is the fewest players a tournament starts with.
	MinTournamentPlayers = 2
	// MaxTournamentPlayers is the most a tournament takes: a 64 bracket,
	// and 63 rounds of round-robin at most.
	MaxTournamentPlayers = 64
	// MaxTournamentName is the longest tournament name, in characters.
	MaxTournamentName = 50
	// MaxSwissRounds bounds a Swiss tournament's rounds option.
	MaxSwissRounds = 12
)

// parseTournament reads /ttt-tournament <sub>, whose options are o (Parse
// refuses any left unread).
func parseTournament(sub string, o *options, pc ParseContext) (Request, error) {
	var err error
	r := TournamentRequest{Action: sub}
	switch sub {
	case TournamentCreate:
		if r.Name, err = parseTournamentName(o, optName, true); err != nil {
			return nil, err
		}
		if err := parseTournamentCreate(o, pc, &r); err != nil {
			return nil, err
		}
	case TournamentAddAI:
		if r.Level, err = o.level(optLevel, pc.Levels); err != nil {
			return nil, err
		}
		if r.Name, err = parseTournamentName(o, optTournament, false); err != nil {
			return nil, err
		}
	case TournamentStart, TournamentStandings, TournamentLeave, TournamentCancel:
		if r.Name, err = parseTournamentName(o, optTournament, false); err != nil {
			return nil, err
		}
	case TournamentStatus:
	default:
		return nil, i18n.Err("error.unknown_command")
	}
	return r, nil
}

// parseTournamentName reads the tournament name in option opt, trimmed:
// "" when absent and not required, an error when empty or over
// MaxTournamentName characters.
func parseTournamentName(o *options, opt string, required bool) (string, error) {
	s, ok, err := o.str(opt)
	s = strings.TrimSpace(s)
	switch {
	case err != nil:
		return "", err
	case ok && (s == "" || utf8.RuneCountInString(s) > MaxTournamentName):
		return "", i18n.Err("error.bad_tournament_name", "max", strconv.Itoa(MaxTournamentName))
	case !ok && required:
		return "", optErr(opt)
	}
	return s, nil
}

// parseTournamentCreate reads the settings of a new tournament into r:
// the format (required), the board, the rounds, the start, the turn time,
// whether it is rated and whether a round robin is played twice.
func parseTournamentCreate(o *options, pc ParseContext, r *TournamentRequest) error {
	var ok bool
	var err error
	if r.Format, ok, err = o.choice(optFormat, FormatSwiss, FormatElimination, FormatRoundRobin); err != nil {
		return err
	} else if !ok {
		return optErr(optFormat)
	}
	switch b, given, err := o.str(optBoard); {
	case err != nil:
		return err
	case !given:
		r.Rules = pc.board()
	case settings.IsBigPreset(b):
		br, err := persistence.ParseBoardRules(b)
		if err != nil {
			return optErr(optBoard)
		}
		r.Rules, r.Wide = br.Small, br.Wide
	default:
		rules, known := settings.PresetRules(b)
		if !known {
			return optErr(optBoard)
		}
		r.Rules = rules
	}
	if n, ok, err := o.integer(optRounds, 1, MaxSwissRounds); err != nil {
		return i18n.Err("error.bad_rounds", "max", strconv.Itoa(MaxSwissRounds))
	} else if ok {
		r.Rounds = int(n)
	}
	if s, ok, err := o.str(optStart); err != nil {
		return err
	} else if ok {
		if r.StartAt, err = parseStart(s, pc.Now); err != nil {
			return &i18n.UserError{Key: "error.bad_start", Option: optStart, Err: err}
		}
	}
	if s, ok, err := o.str(optTurnTime); err != nil {
		return err
	} else if ok {
		d, err := parseDelay(s)
		if err != nil || d < settings.MinTurnTime || d > settings.MaxTurnTime || d%time.Second != 0 {
			return i18n.Err("error.bad_setting." + settings.TurnTime)
		}
		r.TurnTime = d
	}
	if v, ok, err := o.boolean(optRated); err != nil {
		return err
	} else if ok {
		r.Rated = &v
	}
	if r.Double, _, err = o.boolean(optDouble); err != nil {
		return err
	}
	return nil
}

// parseStart reads when a tournament's sign-up closes, given at now: a
// delay (parseDelay), a Discord timestamp ("<t:1796148000>", any style
// letter), or a date and time with its zone (RFC 3339, the seconds
// optional, a space allowed for the T: "2026-12-01 19:00+01:00"); in
// MinTournamentDelay to MaxTournamentDelay from now.
func parseStart(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	var at time.Time
	switch {
	case strings.HasPrefix(s, "<t:") && strings.HasSuffix(s, ">"):
		unix, _, _ := strings.Cut(s[len("<t:"):len(s)-1], ":")
		n, err := strconv.ParseInt(unix, 10, 64)
		if err != nil || strings.HasPrefix(unix, "+") || n < 0 || n > maxUnixTime {
			return time.Time{}, fmt.Errorf("bot: start %q: not a Discord timestamp", s)
		}
		at = time.Unix(n, 0)
	case len(s) >= len("2006-01-02T15:04Z") && s[4] == '-':
		// Upper case by bytes: strings.ToUpper may shorten a string ("ı"
		// is two bytes, "I" one), and a date is ASCII anyway.
		t := []byte(s)
		for i, c := range t {
			if 'a' <= c && c <= 'z' {
				t[i] = c - 'a' + 'A'
			}
		}
		if t[10] == ' ' {
			t[10] = 'T'
		}
		var err error
		if at, err = time.Parse("2006-01-02T15:04Z07:00", string(t)); err != nil {
			if at, err = time.Parse(time.RFC3339, string(t)); err != nil {
				return time.Time{}, fmt.Errorf("bot: start %q: not a date and time with its zone", s)
			}
		}
	default:
		d, err := parseDelay(s)
		if err != nil {
			return time.Time{}, err
		}
		at = now.Add(d)
	}
	if d := at.Sub(now); d < MinTournamentDelay || d > MaxTournamentDelay {
		return time.Time{}, fmt.Errorf("bot: start %q is %v from now, not within %v to %v", s, d.Round(time.Second), MinTournamentDelay, MaxTournamentDelay)
	}
	return at.UTC(), nil
}

// parseDelay reads a duration as /ttt-tournament takes it: Go's units and
// days, "30m", "2h", "1d", "1h30m".
func parseDelay(s string) (time.Duration, error) {
	s = strings.ToLower(strings.ReplaceAll(s, " ", ""))
	var days time.Duration
	if i := strings.IndexByte(s, 'd'); i >= 0 {
		n, err := strconv.Atoi(s[:i])
		if err != nil || n < 0 || n > 30 {
			return 0, fmt.Errorf("bot: delay %q", s)
		}
		days, s = time.Duration(n)*24*time.Hour, s[i+1:]
		if s == "" {
			return days, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("bot: delay %q", s)
	}
	return days + d, nil
}
