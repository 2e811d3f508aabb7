package main

// What serve works out at start-up instead of reading it from the
// environment, so that DISCORD_TOKEN alone is enough: the application (its
// ID and public key, from Discord), the HMAC secrets (generated once and
// kept in Redis), the invite link; and the retrying that lets serve start
// before Discord is reachable.

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/tttbot/ttt-bot/bot/httpmode"
	"github.com/tttbot/ttt-bot/persistence"
)

// backoff is how start-up waits between attempts to reach Discord: first,
// then twice as long each time, never more than max.
type backoff struct{ first, max time.Duration }

// serveBackoff is serve's backoff: a Discord outage or a network that is
// not up yet (a container starting before its network) is waited out, and
// a process left retrying asks about once a minute.
var serveBackoff = backoff{first: time.Second, max: time.Minute}

// tokenRejectedError reports that Discord refused DISCORD_TOKEN: retrying
// cannot help, so serve exits at once.
type tokenRejectedError struct {
	how string // "401", "gateway close 4004"
}

func (e *tokenRejectedError) Error() string {
	return "Discord rejected DISCORD_TOKEN (" + e.how + "): check the token in the developer portal, Bot > Token"
}

// permanentError is a start-up failure that retrying cannot mend (besides
// a rejected token): serve returns it at once.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// noApplicationError reports that GET /applications/@me cannot answer
// here: the API host refused the route itself (a 4xx other than 401, as a
// proxy or an older fake might) or answered something that is not an
// application. Asking again would not change that.
type noApplicationError struct{ err error }

func (e *noApplicationError) Error() string { return "GET /applications/@me: " + e.err.Error() }
func (e *noApplicationError) Unwrap() error { return e.err }

// final reports whether retry must give up on err.
func final(err error) bool {
	var (
		rejected *tokenRejectedError
		perm     *permanentError
		none     *noApplicationError
	)
	return errors.As(err, &rejected) || errors.As(err, &perm) || errors.As(err, &none)
}

// retry calls try until it succeeds, fails for good (a rejected token, a
// permanent error), or ctx ends. Each failed attempt is logged with the
// wait before the next one; the waits double from b.first up to b.max.
func retry(ctx context.Context, log *slog.Logger, step string, b backoff, try func() error) error {
	wait := b.first
	for attempt := 1; ; attempt++ {
		err := try()
		if err == nil {
			if attempt > 1 {
				log.Info("serve: Discord answered", "step", step, "attempts", attempt)
			}
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w", step, ctx.Err())
		}
		if final(err) {
			return err
		}
		log.Warn("serve: Discord is unreachable; retrying", "step", step, "attempt", attempt, "retry_in", wait, "err", err)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%s: %w", step, ctx.Err())
		case <-t.C:
		}
		wait = min(2*wait, b.max)
	}
}

// application is what Discord says about the token's application.
type application struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	VerifyKey string `json:"verify_key"` // the Ed25519 public key, hex
}

// fetchApplication asks Discord for the application of the session's
// token (GET /applications/@me). A 401 is a *tokenRejectedError; a route
// the API host refuses, or an answer that is not an application, is a
// *noApplicationError; anything else (the network, a 5xx) may pass.
func fetchApplication(ctx context.Context, ses *discordgo.Session) (application, error) {
	body, err := ses.RequestWithBucketID(http.MethodGet, discordgo.EndpointApplication("@me"), nil,
		discordgo.EndpointApplication(""), discordgo.WithContext(ctx))
	var re *discordgo.RESTError
	switch {
	case err == nil:
	case errors.As(err, &re) && re.Response != nil:
		switch st := re.Response.StatusCode; {
		case st == http.StatusUnauthorized:
			return application{}, &tokenRejectedError{how: "401"}
		case st >= 400 && st < 500 && st != http.StatusTooManyRequests && st != http.StatusRequestTimeout:
			return application{}, &noApplicationError{err: fmt.Errorf("HTTP %d", st)}
		}
		return application{}, fmt.Errorf("GET /applications/@me: HTTP %d", re.Response.StatusCode)
	default:
		return application{}, fmt.Errorf("GET /applications/@me: %w", err)
	}
	var app application
	if err := json.Unmarshal(body, &app); err != nil || !snowflake(app.ID) {
		return application{}, &noApplicationError{err: fmt.Errorf("the answer is not an application: %.80q", body)}
	}
	return app, nil
}

// snowflake reports whether s looks like a Discord ID.
func snowflake(s string) bool {
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil && !strings.HasPrefix(s, "+")
}

// appIDFromToken reads the bot's user ID from a bot token, whose first
// segment is that ID in base64; for most applications the bot user's ID
// is the application's.
func appIDFromToken(token string) (string, bool) {
	first, _, ok := strings.Cut(token, ".")
	if !ok {
		return "", false
	}
	first = strings.TrimRight(first, "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(first); err == nil && snowflake(string(b)) {
			return string(b), true
		}
	}
	return "", false
}

// resolveApplication fills in cfg.appID and, in http mode, cfg.publicKey
// from Discord, waiting (with b) while Discord cannot be reached. Values
// set in the environment win; one that differs from Discord's is logged.
//
// The application ID comes from GET /applications/@me rather than from
// the token: a bot user's ID (the token's first segment) is the
// application's ID for most applications but not for some old ones, the
// token's layout is not a documented API, and the same call proves the
// token good (so a bad one stops serve here, with a clear message, before
// anything starts) and gives the public key that http mode needs. The token
// is decoded only when the call cannot work at all here (the API host
// refuses the route, as a proxy might), never because Discord is down:
// then serve waits, since a guessed ID would only fail later, at command
// registration.
func resolveApplication(ctx context.Context, cfg *serveConfig, ses *discordgo.Session, log *slog.Logger, b backoff) error {
	var app application
	err := retry(ctx, log, "application", b, func() error {
		var err error
		app, err = fetchApplication(ctx, ses)
		return err
	})
	var none *noApplicationError
	switch {
	case err == nil:
		log.Info("serve: application from Discord", "app", app.ID, "name", app.Name)
		if cfg.appID == "" {
			cfg.appID = app.ID
		} else if cfg.appID != app.ID {
			log.Warn("serve: DISCORD_APP_ID is not the application of DISCORD_TOKEN; using DISCORD_APP_ID as set",
				"DISCORD_APP_ID", cfg.appID, "token_app", app.ID)
		}
	case errors.As(err, &none):
		if cfg.appID != "" {
			log.Warn("serve: cannot ask Discord for the application; using DISCORD_APP_ID unchecked", "err", err)
			break
		}
		id, ok := appIDFromToken(cfg.token)
		if !ok {
			return badInput("DISCORD_APP_ID is not set, %v, and DISCORD_TOKEN does not begin with the bot's ID: "+
				"set DISCORD_APP_ID (General Information > Application ID)", err)
		}
		cfg.appID = id
		log.Warn("serve: cannot ask Discord for the application; using the bot user ID in DISCORD_TOKEN as the application ID "+
			"(set DISCORD_APP_ID if the commands fail to register)", "app", id, "err", err)
	default:
		return err
	}
	if cfg.mode != modeHTTP {
		return nil
	}
	switch {
	case cfg.publicKey == nil && app.VerifyKey == "":
		return badInput("DISCORD_PUBLIC_KEY is not set and Discord did not give the application's public key: " +
			"set DISCORD_PUBLIC_KEY (General Information > Public Key)")
	case cfg.publicKey == nil:
		key, err := httpmode.ParsePublicKey(app.VerifyKey)
		if err != nil {
			return fmt.Errorf("the public key Discord gave (verify_key %q): %w", app.VerifyKey, err)
		}
		cfg.publicKey = key
		log.Info("serve: public key from Discord", "verify_key", app.VerifyKey)
	case app.VerifyKey != "" && !strings.EqualFold(hex.EncodeToString(cfg.publicKey), app.VerifyKey):
		log.Warn("serve: DISCORD_PUBLIC_KEY is not the application's public key; Discord's requests will fail verification",
			"DISCORD_PUBLIC_KEY", hex.EncodeToString(cfg.publicKey), "verify_key", app.VerifyKey)
	}
	return nil
}

// invitePermissions are the permissions the invite link asks for, each
// for something the bot does in a server's channels:
const invitePermissions int64 = 0 |
	// View Channel: the bot edits its boards through the channel API once
	// their interaction is over (time-outs, resignations by command,
	// moderators, AI duel moves, the retrain report), which Discord only
	// allows in a channel the bot can see.
	discordgo.PermissionViewChannel |
	// Send Messages: the bot posts in the channel (boards, challenges,
	// follow-ups and replies); a server that wants it out of a channel
	// denies this there.
	discordgo.PermissionSendMessages |
	// Embed Links: stats, histories, reviews and the retrain report are
	// embeds, which Discord drops from the bot's channel messages and
	// edits without it.
	discordgo.PermissionEmbedLinks |
	// Attach Files: reviews and the retrain report carry PNG charts,
	// uploaded as attachments (also when the report is edited).
	discordgo.PermissionAttachFiles |
	// Read Message History: the messages the bot edits are its older
	// messages in the channel, and Discord hides a channel's past from a
	// member without it.
	discordgo.PermissionReadMessageHistory |
	// Use Application Commands: the bot is used only through its slash
	// commands (and the buttons of their answers); the invite page lists
	// it, telling the admin how the bot is used. Members need it
	// themselves to run the commands.
	discordgo.PermissionUseApplicationCommands

// inviteURL is the link that adds the bot to a server: the bot user and
// its slash commands (scopes bot and applications.commands) with
// invitePermissions. It always points at discord.com, whatever
// DISCORD_API_URL says: a person opens it in a browser.
func inviteURL(appID string) string {
	return "https://discord.com/oauth2/authorize?client_id=" + url.QueryEscape(appID) +
		"&scope=bot+applications.commands&permissions=" + strconv.FormatInt(invitePermissions, 10)
}

// Names of the secrets serve keeps in Redis (the keys are
// ttt:secret:<name>), by the setting that overrides each.
var secretNames = map[string]string{"CUSTOM_ID_KEY": "custom_id_key", "PSEUDONYM_KEY": "pseudonym_key"}

// newSecret makes a secret: 32 bytes from crypto/rand, written as 64 hex
// digits. Hex, so that the stored value can be copied from Redis into the
// environment (redis-cli GET) byte for byte, pinning the key without
// breaking a button or a pseudonym.
func newSecret() ([]byte, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	return []byte(hex.EncodeToString(b)), nil
}

// secretStore is where resolveSecrets keeps the secrets not set in the
// environment; *persistence.Store satisfies it.
type secretStore interface {
	Secret(ctx context.Context, name string, gen func() ([]byte, error)) ([]byte, error)
}

// Where a secret came from, as logged.
const (
	secretFromEnv       = "environment"
	secretFromRedis     = "redis"     // stored earlier, by this or another process
	secretFromGenerated = "generated" // made now and stored in Redis
)

// resolveSecrets fills in cfg.customIDKey and cfg.pseudonymKey where the
// environment left them empty: from store, generated there once and shared
// by every process on the same Redis. It logs where each came from and a
// fingerprint (never the value), so that replicas can be compared. where
// says what keeps store's data; volatile means nothing does (the in-memory
// fallback), which it warns about loudly.
func resolveSecrets(ctx context.Context, store secretStore, cfg *serveConfig, log *slog.Logger, where string, volatile bool) error {
	var lost []string
	for _, s := range []struct {
		setting string
		key     *[]byte
	}{{"CUSTOM_ID_KEY", &cfg.customIDKey}, {"PSEUDONYM_KEY", &cfg.pseudonymKey}} {
		if len(*s.key) > 0 {
			log.Info("serve: secret", "name", s.setting, "source", secretFromEnv, "fingerprint", fingerprint(*s.key))
			continue
		}
		var made []byte
		v, err := store.Secret(ctx, secretNames[s.setting], func() ([]byte, error) {
			var err error
			made, err = newSecret()
			return made, err
		})
		if err != nil {
			return fmt.Errorf("%s: %w", s.setting, err)
		}
		source := secretFromRedis
		if made != nil && string(v) == string(made) {
			source = secretFromGenerated
		}
		*s.key = v
		log.Info("serve: secret", "name", s.setting, "source", source, "kept_in", where, "fingerprint", fingerprint(v))
		lost = append(lost, s.setting)
	}
	if volatile && len(lost) > 0 {
		log.Warn("serve: SECRETS WILL BE LOST: "+strings.Join(lost, " and ")+" live only in the in-memory Redis, which is gone "+
			"when this process exits: after a restart every board's buttons stop working and players get new pseudonyms. "+
			"Set REDIS_URL, install redis-server, or set the keys in the environment (openssl rand -hex 32).", "secrets", lost)
	}
	return nil
}

// fingerprint identifies a secret in logs without revealing it: the first
// 8 bytes of its SHA-256, in hex. Equal fingerprints mean equal secrets.
func fingerprint(secret []byte) string {
	sum := sha256.Sum256(secret)
	return hex.EncodeToString(sum[:8])
}

// redisStorage says what keeps the data of the Redis that
// persistence.Open picks for redisURL, as Open decides it: the Redis named,
// the private redis-server's directory, or nothing (volatile: the
// in-memory server, when redis-server is not installed).
func redisStorage(redisURL string) (where string, volatile bool) {
	switch {
	case redisURL != "":
		return "REDIS_URL", false
	case hasRedisServer():
		return "./" + persistence.DefaultDataDir, false
	}
	return "memory", true
}

// hasRedisServer reports whether persistence.Open can start a private
// redis-server.
func hasRedisServer() bool {
	_, err := exec.LookPath("redis-server")
	return err == nil
}
