package persistence

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// ModelMeta describes one version of a rules' network, stored as JSON
// beside its weights blob.
type ModelMeta struct {
	// Rules is the rules key the network plays, like "3x3k3".
	Rules string `json:"rules"`
	// Version numbers a rules' models from 1, in publishing order.
	Version int64 `json:"version"`
	// Created is when the version was published.
	Created time.Time `json:"created"`
	// Eval is the training job's evaluation summary, any JSON value (say
	// win and draw rates against each AI level).
	Eval json.RawMessage `json:"eval,omitempty"`
	// SHA256 is the hex SHA-256 of the blob, checked on every load.
	SHA256 string `json:"sha256"`
	// Size is the blob's length in bytes.
	Size int64 `json:"size"`
	// Source says where the version came from: "" for the retrain job,
	// ModelSourceImport for a weights file published by hand, which no
	// gate measured.
	Source string `json:"source,omitempty"`
	// Note is free text about the version, such as the file it was
	// imported from.
	Note string `json:"note,omitempty"`
}

// ModelSourceImport is the ModelMeta.Source of a version imported from a
// weights file ("bot models import") rather than published by the
// retrain job: it bypassed the gate.
const ModelSourceImport = "import"

// Kinds of ModelEvent.
const (
	// ModelPublished: a new version became current.
	ModelPublished = "publish"
	// ModelRolledBack: the previous version became current again.
	ModelRolledBack = "rollback"
	// ModelResync: the subscription was re-established after a lost
	// connection, so events may have been missed; reload every rules'
	// current model.
	ModelResync = "resync"
)

// ModelEvent announces a change of a rules' current model.
type ModelEvent struct {
	// Kind is ModelPublished, ModelRolledBack or ModelResync.
	Kind string `json:"kind"`
	// Rules is the rules key ("" for ModelResync).
	Rules string `json:"rules,omitempty"`
	// Version is the new current version (0 for ModelResync).
	Version int64 `json:"version,omitempty"`
}

// modelVersionString formats a model version number for keys.
func modelVersionString(v int64) string { return strconv.FormatInt(v, 10) }

// modelPublishScript stores a version, makes it current, drops versions
// beyond the kept ones and announces it, atomically.
//
// KEYS[1] current, KEYS[2] versions, KEYS[3] meta of v, KEYS[4] blob of v.
// ARGV[1] v, ARGV[2] meta JSON, ARGV[3] blob, ARGV[4] versions to keep in
// all (the current one and the earlier ones kept), ARGV[5] channel,
// ARGV[6] event JSON, ARGV[7] and ARGV[8] the meta and blob key prefixes
// (the version number completes them; same slot as KEYS[2]).
// Returns the dropped versions.
var modelPublishScript = redis.NewScript(`
redis.call('SET', KEYS[3], ARGV[2])
redis.call('SET', KEYS[4], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[1], ARGV[1])
redis.call('SET', KEYS[1], ARGV[1])
local keep = tonumber(ARGV[4])
local old = redis.call('ZRANGE', KEYS[2], 0, -keep - 1)
for _, v in ipairs(old) do
  redis.call('DEL', ARGV[7] .. v, ARGV[8] .. v)
  redis.call('ZREM', KEYS[2], v)
end
redis.call('PUBLISH', ARGV[5], ARGV[6])
return old
`)

// modelRollbackScript makes the newest kept version before the current
// one current and announces it.
//
// KEYS[1] current, KEYS[2] versions. ARGV[1] channel, ARGV[2] rules.
// Returns the new current version, or 0 if there is none to go back to.
var modelRollbackScript = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if not cur then
  return 0
end
local prev = redis.call('ZREVRANGEBYSCORE', KEYS[2], '(' .. cur, '-inf', 'LIMIT', 0, 1)
if #prev == 0 then
  return 0
end
redis.call('SET', KEYS[1], prev[1])
redis.call('PUBLISH', ARGV[1], cjson.encode({kind = 'rollback', rules = ARGV[2], version = tonumber(prev[1])}))
return tonumber(prev[1])
`)

// modelRollbackToScript makes a kept version current and announces it.
//
// KEYS[1] current, KEYS[2] versions. ARGV[1] the version, ARGV[2]
// channel, ARGV[3] rules. Returns 0 if the version is not kept, 1 if it
// is current already, 2 if it was made current.
var modelRollbackToScript = redis.NewScript(`
if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then
  return 0
end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return 1
end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('PUBLISH', ARGV[2], cjson.encode({kind = 'rollback', rules = ARGV[3], version = tonumber(ARGV[1])}))
return 2
`)

// PublishModel stores a new version of the rules' network (weights blob
// and metadata), makes it current, keeps Options.ModelVersionsKept earlier
// versions for rollback (dropping older ones), and announces the change to
// every subscriber, all in one atomic step. It fills in m's Rules,
// Version, Created, Size and, when empty, SHA256; when m.SHA256 is set it
// must match the blob, else the publish fails with ErrCorrupt and the
// current model stays. m.Eval, if set, must be JSON.
func (s *Store) PublishModel(ctx context.Context, rules string, m ModelMeta, blob []byte) (ModelMeta, error) {
	if rules == "" || len(m.Eval) > 0 && !json.Valid(m.Eval) {
		return ModelMeta{}, fmt.Errorf("%w: model for rules %q: rules are required and eval must be JSON", ErrInvalid, rules)
	}
	sum := sha256.Sum256(blob)
	got := hex.EncodeToString(sum[:])
	if m.SHA256 != "" && m.SHA256 != got {
		return ModelMeta{}, fmt.Errorf("%w: %s model blob has SHA-256 %s, the metadata says %s; not published", ErrCorrupt, rules, got, m.SHA256)
	}
	v, err := s.rdb.Incr(ctx, s.keys.modelSeq(rules)).Result()
	if err != nil {
		return ModelMeta{}, fmt.Errorf("persistence: numbering a %s model: %w", rules, err)
	}
	m.Rules, m.Version, m.Created, m.SHA256, m.Size = rules, v, s.now().UTC().Truncate(time.Millisecond), got, int64(len(blob))
	meta, err := json.Marshal(m)
	if err != nil {
		return ModelMeta{}, fmt.Errorf("persistence: encoding %s model metadata: %w", rules, err)
	}
	ev, err := json.Marshal(ModelEvent{Kind: ModelPublished, Rules: rules, Version: v})
	if err != nil {
		return ModelMeta{}, fmt.Errorf("persistence: encoding a model event: %w", err)
	}
	keep := int64(s.opts.ModelVersionsKept) + 1
	prefixMeta := s.keys.modelMeta(rules, 0)
	prefixBlob := s.keys.modelBlob(rules, 0)
	err = modelPublishScript.Run(ctx, s.rdb,
		[]string{s.keys.modelCurrent(rules), s.keys.modelVersions(rules), s.keys.modelMeta(rules, v), s.keys.modelBlob(rules, v)},
		v, meta, blob, keep, s.keys.modelChannel(), ev,
		prefixMeta[:len(prefixMeta)-1], prefixBlob[:len(prefixBlob)-1]).Err()
	if err != nil {
		return ModelMeta{}, fmt.Errorf("persistence: publishing %s model version %d: %w", rules, v, err)
	}
	return m, nil
}

// RollbackModel makes the newest kept version before the current one
// current again and announces it. It fails with ErrNotFound when there is
// no earlier version.
func (s *Store) RollbackModel(ctx context.Context, rules string) (ModelMeta, error) {
	v, err := modelRollbackScript.Run(ctx, s.rdb,
		[]string{s.keys.modelCurrent(rules), s.keys.modelVersions(rules)},
		s.keys.modelChannel(), rules).Int64()
	if err != nil {
		return ModelMeta{}, fmt.Errorf("persistence: rolling back the %s model: %w", rules, err)
	}
	if v == 0 {
		return ModelMeta{}, fmt.Errorf("%w: no earlier %s model to roll back to", ErrNotFound, rules)
	}
	return s.modelMeta(ctx, rules, v)
}

// RollbackModelTo makes the kept version v of the rules' network current
// again and announces it as a rollback: any kept version, earlier or
// later than the current one (to undo a rollback). Nothing changes, and
// nothing is announced, when v is current already. It fails with
// ErrNotFound when v is not kept (never published, or dropped).
func (s *Store) RollbackModelTo(ctx context.Context, rules string, v int64) (ModelMeta, error) {
	if v <= 0 {
		return ModelMeta{}, fmt.Errorf("%w: %s model version %d", ErrNotFound, rules, v)
	}
	res, err := modelRollbackToScript.Run(ctx, s.rdb,
		[]string{s.keys.modelCurrent(rules), s.keys.modelVersions(rules)},
		modelVersionString(v), s.keys.modelChannel(), rules).Int64()
	if err != nil {
		return ModelMeta{}, fmt.Errorf("persistence: rolling the %s model back to version %d: %w", rules, v, err)
	}
	if res == 0 {
		return ModelMeta{}, fmt.Errorf("%w: no kept %s model version %d to roll back to", ErrNotFound, rules, v)
	}
	return s.modelMeta(ctx, rules, v)
}

// CurrentModelVersion returns the rules' current model version; it fails
// with ErrNotFound when none was published.
func (s *Store) CurrentModelVersion(ctx context.Context, rules string) (int64, error) {
	cur, err := s.rdb.Get(ctx, s.keys.modelCurrent(rules)).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, fmt.Errorf("%w: no %s model published", ErrNotFound, rules)
	}
	if err != nil {
		return 0, fmt.Errorf("persistence: current %s model: %w", rules, err)
	}
	return cur, nil
}

// modelMeta reads and decodes one version's metadata.
func (s *Store) modelMeta(ctx context.Context, rules string, v int64) (ModelMeta, error) {
	raw, err := s.rdb.Get(ctx, s.keys.modelMeta(rules, v)).Bytes()
	if errors.Is(err, redis.Nil) {
		return ModelMeta{}, fmt.Errorf("%w: %s model version %d", ErrNotFound, rules, v)
	}
	if err != nil {
		return ModelMeta{}, fmt.Errorf("persistence: %s model version %d: %w", rules, v, err)
	}
	return decodeModelMeta(rules, v, raw)
}

// decodeModelMeta decodes metadata and checks that it names rules and v.
func decodeModelMeta(rules string, v int64, raw []byte) (ModelMeta, error) {
	var m ModelMeta
	if err := json.Unmarshal(raw, &m); err != nil {
		return ModelMeta{}, fmt.Errorf("%w: %s model version %d metadata: %v", ErrCorrupt, rules, v, err)
	}
	if m.Rules != rules || m.Version != v {
		return ModelMeta{}, fmt.Errorf("%w: %s model version %d metadata names %s version %d", ErrCorrupt, rules, v, m.Rules, m.Version)
	}
	return m, nil
}

// LoadModel returns a version of the rules' network (0: the current one)
// with its metadata, after checking the blob's SHA-256: a mismatch fails
// with ErrCorrupt (keep serving the model already loaded, or roll back).
// It fails with ErrNotFound when there is no such version.
func (s *Store) LoadModel(ctx context.Context, rules string, version int64) (ModelMeta, []byte, error) {
	if version == 0 {
		v, err := s.CurrentModelVersion(ctx, rules)
		if err != nil {
			return ModelMeta{}, nil, err
		}
		version = v
	}
	vals, err := s.rdb.MGet(ctx, s.keys.modelMeta(rules, version), s.keys.modelBlob(rules, version)).Result()
	if err != nil {
		return ModelMeta{}, nil, fmt.Errorf("persistence: loading %s model version %d: %w", rules, version, err)
	}
	metaRaw, ok1 := vals[0].(string)
	blob, ok2 := vals[1].(string)
	if !ok1 && !ok2 {
		return ModelMeta{}, nil, fmt.Errorf("%w: %s model version %d", ErrNotFound, rules, version)
	}
	if !ok1 || !ok2 {
		return ModelMeta{}, nil, fmt.Errorf("%w: %s model version %d lacks its metadata or its blob", ErrCorrupt, rules, version)
	}
	m, err := decodeModelMeta(rules, version, []byte(metaRaw))
	if err != nil {
		return ModelMeta{}, nil, err
	}
	sum := sha256.Sum256([]byte(blob))
	if got := hex.EncodeToString(sum[:]); got != m.SHA256 || int64(len(blob)) != m.Size {
		return ModelMeta{}, nil, fmt.Errorf("%w: %s model version %d: blob has SHA-256 %s and %d bytes, metadata says %s and %d",
			ErrCorrupt, rules, version, got, len(blob), m.SHA256, m.Size)
	}
	return m, []byte(blob), nil
}

// ModelVersions returns the metadata of the rules' kept versions, newest
// first, and the current version (0 when none was published). A version
// whose metadata does not decode is left out.
func (s *Store) ModelVersions(ctx context.Context, rules string) ([]ModelMeta, int64, error) {
	pipe := s.rdb.Pipeline()
	curCmd := pipe.Get(ctx, s.keys.modelCurrent(rules))
	vsCmd := pipe.ZRevRange(ctx, s.keys.modelVersions(rules), 0, -1)
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, 0, fmt.Errorf("persistence: listing %s models: %w", rules, err)
	}
	cur, _ := strconv.ParseInt(curCmd.Val(), 10, 64)
	vs := vsCmd.Val()
	if len(vs) == 0 {
		return nil, cur, nil
	}
	keys := make([]string, len(vs))
	nums := make([]int64, len(vs))
	for i, v := range vs {
		nums[i], _ = strconv.ParseInt(v, 10, 64)
		keys[i] = s.keys.modelMeta(rules, nums[i])
	}
	vals, err := s.rdb.MGet(ctx, keys...).Result()
	if err != nil {
		return nil, cur, fmt.Errorf("persistence: listing %s models: %w", rules, err)
	}
	out := make([]ModelMeta, 0, len(vals))
	for i, val := range vals {
		raw, ok := val.(string)
		if !ok {
			continue
		}
		if m, err := decodeModelMeta(rules, nums[i], []byte(raw)); err == nil {
			out = append(out, m)
		}
	}
	return out, cur, nil
}

// SubscribeModels returns a channel of model events (publishes and
// rollbacks from any Store on the same Redis). The subscription is in
// place when it returns. It survives lost connections: go-redis
// reconnects and resubscribes, and each time it has, a ModelResync event
// says that events may have been missed. The channel is closed when ctx is
// done; events are dropped only if the reader does not keep up and ctx
// ends.
func (s *Store) SubscribeModels(ctx context.Context) (<-chan ModelEvent, error) {
	return subscribe(ctx, s.rdb, s.keys.modelChannel(), ModelEvent{Kind: ModelResync}, func(payload string) (ModelEvent, bool) {
		var ev ModelEvent
		if json.Unmarshal([]byte(payload), &ev) != nil || ev.Kind == "" {
			return ev, false
		}
		return ev, true
	})
}

// subscribe subscribes to a pub/sub channel and returns its messages,
// decoded, on a Go channel; resync is sent after every re-subscription
// (go-redis resubscribes after a lost connection), since messages may
// have been missed meanwhile, and messages that do not
// decode are skipped. The subscription is in place when it returns; the
// Go channel is closed when ctx is done.
func subscribe[T any](ctx context.Context, rdb redis.UniversalClient, channel string, resync T, decode func(string) (T, bool)) (<-chan T, error) {
	ps := rdb.Subscribe(ctx, channel)
	if _, err := ps.Receive(ctx); err != nil {
		_ = ps.Close()
		return nil, fmt.Errorf("persistence: subscribing to %s: %w", channel, err)
	}
	out := make(chan T, 16)
	stop := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
		case <-stop:
		}
		_ = ps.Close()
	}()
	go func() {
		defer close(out)
		defer close(stop)
		send := func(ev T) bool {
			select {
			case out <- ev:
				return true
			case <-ctx.Done():
				return false
			}
		}
		const idle = 30 * time.Second
		backoff := 50 * time.Millisecond
		for ctx.Err() == nil {
			msg, err := ps.ReceiveTimeout(ctx, idle)
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				var ne interface{ Timeout() bool }
				if errors.As(err, &ne) && ne.Timeout() {
					_ = ps.Ping(ctx) // a dead connection fails here and is replaced
					continue
				}
				select {
				case <-time.After(backoff):
				case <-ctx.Done():
					return
				}
				backoff = min(backoff*2, 2*time.Second)
				continue
			}
			backoff = 50 * time.Millisecond
			switch m := msg.(type) {
			case *redis.Subscription:
				if m.Kind == "subscribe" && !send(resync) {
					return
				}
			case *redis.Message:
				if ev, ok := decode(m.Payload); ok && !send(ev) {
					return
				}
			}
		}
	}()
	return out, nil
}
