package persistence

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Limits of the per-guild settings and audit log.
const (
	// AuditLogLen is how many entries a guild's audit log keeps.
	AuditLogLen = 100
	// maxSettingLen bounds a stored setting's name and value.
	maxSettingLen = 2000
)

// AuditEntry is one line of a guild's audit log: a settings change or a
// moderator action.
type AuditEntry struct {
	// Time is when it happened.
	Time time.Time `json:"t"`
	// User is the Discord user who did it.
	User string `json:"u"`
	// Action names it: "set", "reset", "end-game", "retrain", "rollback",
	// "forget-server", ...
	Action string `json:"a"`
	// Detail says what exactly: the setting and its new value, the board.
	Detail string `json:"d,omitempty"`
}

// SettingsEvent announces that a guild's settings changed; Guild is empty
// for a resync (the subscription was re-established and changes may have
// been missed: drop every cached guild).
type SettingsEvent struct {
	Guild string
}

// settingsScript changes one setting of a guild and logs it, atomically:
// KEYS[1] the settings hash, KEYS[2] the audit log. ARGV[1] the setting,
// ARGV[2] its value ("" removes it: back to the default), ARGV[3] the
// audit entry (JSON), ARGV[4] the log length, ARGV[5] the channel to
// publish on, ARGV[6] the guild.
var settingsScript = redis.NewScript(`
if ARGV[2] == '' then
  redis.call('HDEL', KEYS[1], ARGV[1])
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
end
redis.call('LPUSH', KEYS[2], ARGV[3])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[4]) - 1)
redis.call('PUBLISH', ARGV[5], ARGV[6])
return 1
`)

// GuildSettings returns the settings a guild has set, by name, as the text
// SetGuildSetting stored; a guild that set nothing has none (and no error).
func (s *Store) GuildSettings(ctx context.Context, guild string) (map[string]string, error) {
	if guild == "" {
		return map[string]string{}, nil
	}
	m, err := s.rdb.HGetAll(ctx, s.keys.settings(guild)).Result()
	if err != nil {
		return nil, fmt.Errorf("persistence: settings of guild %s: %w", guild, err)
	}
	return m, nil
}

// SetGuildSetting sets one setting of a guild to value ("" resets it to
// the default), appends e to the guild's audit log (the newest
// AuditLogLen are kept) and announces the change to every Store's
// SubscribeSettings, all in one atomic step. The value is stored as given:
// parsing and checking it is the caller's.
func (s *Store) SetGuildSetting(ctx context.Context, guild, name, value string, e AuditEntry) error {
	switch {
	case guild == "":
		return fmt.Errorf("%w: settings need a guild", ErrInvalid)
	case name == "" || len(name) > maxSettingLen || len(value) > maxSettingLen:
		return fmt.Errorf("%w: setting %q of %d bytes", ErrInvalid, name, len(value))
	}
	raw, err := s.auditJSON(e)
	if err != nil {
		return err
	}
	err = settingsScript.Run(ctx, s.rdb, []string{s.keys.settings(guild), s.keys.audit(guild)},
		name, value, raw, AuditLogLen, s.keys.settingsChannel(), guild).Err()
	if err != nil {
		return fmt.Errorf("persistence: set %s of guild %s: %w", name, guild, err)
	}
	return nil
}

// auditJSON encodes an audit entry, stamping the time if it has none.
func (s *Store) auditJSON(e AuditEntry) (string, error) {
	if e.Time.IsZero() {
		e.Time = s.now()
	}
	e.Time = e.Time.UTC().Truncate(time.Second)
	raw, err := json.Marshal(e)
	if err != nil {
		return "", fmt.Errorf("persistence: audit entry: %w", err)
	}
	return string(raw), nil
}

// Audit appends e to a guild's audit log (a moderator action that is not
// a settings change); the newest AuditLogLen entries are kept.
func (s *Store) Audit(ctx context.Context, guild string, e AuditEntry) error {
	if guild == "" {
		return fmt.Errorf("%w: an audit entry needs a guild", ErrInvalid)
	}
	raw, err := s.auditJSON(e)
	if err != nil {
		return err
	}
	key := s.keys.audit(guild)
	_, err = s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.LPush(ctx, key, raw)
		p.LTrim(ctx, key, 0, AuditLogLen-1)
		return nil
	})
	if err != nil {
		return fmt.Errorf("persistence: audit of guild %s: %w", guild, err)
	}
	return nil
}

// AuditLog returns up to n of a guild's newest audit entries, newest
// first. Entries that do not decode are skipped; their count is reported
// with a *CorruptAuditError alongside the others.
func (s *Store) AuditLog(ctx context.Context, guild string, n int) ([]AuditEntry, error) {
	if n <= 0 || guild == "" {
		return nil, nil
	}
	raw, err := s.rdb.LRange(ctx, s.keys.audit(guild), 0, int64(n)-1).Result()
	if err != nil {
		return nil, fmt.Errorf("persistence: audit log of guild %s: %w", guild, err)
	}
	out := make([]AuditEntry, 0, len(raw))
	skipped := 0
	for _, r := range raw {
		var e AuditEntry
		if json.Unmarshal([]byte(r), &e) != nil || e.Action == "" {
			skipped++
			continue
		}
		out = append(out, e)
	}
	if skipped > 0 {
		return out, &CorruptAuditError{Guild: guild, Skipped: skipped}
	}
	return out, nil
}

// CorruptAuditError reports audit entries that AuditLog skipped.
type CorruptAuditError struct {
	Guild   string
	Skipped int
}

// Error says how many entries were skipped.
func (e *CorruptAuditError) Error() string {
	return fmt.Sprintf("persistence: %d corrupt audit entries of guild %s skipped", e.Skipped, e.Guild)
}

// Unwrap makes it match ErrCorrupt.
func (e *CorruptAuditError) Unwrap() error { return ErrCorrupt }

// SubscribeSettings returns a channel of settings events from every Store
// on the same Redis: the guild whose settings changed, or a resync event
// (empty guild) after every re-subscription (a lost connection, when
// changes may have been missed). The subscription is in
// place when it returns; the channel is closed when ctx is done.
func (s *Store) SubscribeSettings(ctx context.Context) (<-chan SettingsEvent, error) {
	return subscribe(ctx, s.rdb, s.keys.settingsChannel(), SettingsEvent{}, func(payload string) (SettingsEvent, bool) {
		return SettingsEvent{Guild: payload}, payload != ""
	})
}

// DeleteGuildSettings removes a guild's settings and audit log and
// announces the change.
func (s *Store) DeleteGuildSettings(ctx context.Context, guild string) error {
	if guild == "" {
		return nil
	}
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Del(ctx, s.keys.settings(guild), s.keys.audit(guild))
		return nil
	})
	if err == nil {
		err = s.rdb.Publish(ctx, s.keys.settingsChannel(), guild).Err()
	}
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("persistence: delete settings of guild %s: %w", guild, err)
	}
	return nil
}
