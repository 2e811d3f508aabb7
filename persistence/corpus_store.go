package persistence

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Stream entry fields of a corpus record.
const (
	corpusFieldGame   = "g" // the game ID
	corpusFieldRecord = "r" // the CorpusRecord as JSON
)

// corpusSeenFactor keeps the appended-game IDs of about this many times
// CorpusMaxLen records, so that a game is still recognised as a duplicate
// for as long as its record can be in the (approximately trimmed) stream.
const corpusSeenFactor = 2

// corpusAppendScript appends a record exactly once per game ID.
//
// KEYS[1] the stream, KEYS[2] the seen set.
// ARGV[1] game ID, ARGV[2] append time in ms, ARGV[3] record JSON,
// ARGV[4] max length (0: none), ARGV[5] min ID ms for age trimming (0: none),
// ARGV[6] how many seen IDs to keep (0: all).
// Returns {1, id, length} when appended, {0, "", length} when the game was
// already there.
//
// The entry ID is the append time in ms from the Store's clock ("ms-*"),
// so age trimming follows Options.Now; if that is behind the stream's last
// ID (clocks of two replicas disagree) Redis picks the ID ("*"), which is
// never behind.
var corpusAppendScript = redis.NewScript(`
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then
  return {0, '', redis.call('XLEN', KEYS[1])}
end
local maxlen = tonumber(ARGV[4])
local minid = tonumber(ARGV[5])
local trim = {}
if maxlen > 0 then
  trim = {'MAXLEN', '~', maxlen}
elseif minid > 0 then
  trim = {'MINID', '~', minid}
end
local function add(id)
  local args = {'XADD', KEYS[1]}
  for _, a in ipairs(trim) do args[#args + 1] = a end
  args[#args + 1] = id
  args[#args + 1] = 'g'
  args[#args + 1] = ARGV[1]
  args[#args + 1] = 'r'
  args[#args + 1] = ARGV[3]
  return args
end
local id = redis.pcall(unpack(add(ARGV[2] .. '-*')))
if type(id) == 'table' and id.err then
  id = redis.call(unpack(add('*')))
end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
if minid > 0 then
  if maxlen > 0 then
    redis.call('XTRIM', KEYS[1], 'MINID', '~', minid)
  end
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. minid)
end
local keep = tonumber(ARGV[6])
if keep > 0 then
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -keep - 1)
end
return {1, id, redis.call('XLEN', KEYS[1])}
`)

// AppendGame adds a finished game to its rules' corpus, with its players'
// Discord IDs replaced by pseudonyms. It returns the record's stream ID and
// whether it was added: appending a game ID that is already in the corpus
// (a retry, a second replica) adds nothing and returns "" and false.
// Duplicates are recognised for as long as the record is retained.
func (s *Store) AppendGame(ctx context.Context, g FinishedGame) (id string, added bool, err error) {
	r, err := s.corpusRecord(g)
	if err != nil {
		return "", false, err
	}
	return s.appendRecord(ctx, r)
}

// AppendRecord adds a validated record to its rules' corpus, exactly once
// per game ID, trimming the stream as Options.CorpusMaxLen and
// Options.CorpusMaxAge say. It is what AppendGame and the imports use.
func (s *Store) AppendRecord(ctx context.Context, r CorpusRecord) (id string, added bool, err error) {
	if err := r.Validate(); err != nil {
		return "", false, err
	}
	return s.appendRecord(ctx, r)
}

// appendRecord is AppendRecord for a record already validated.
func (s *Store) appendRecord(ctx context.Context, r CorpusRecord) (id string, added bool, err error) {
	line, err := r.MarshalLine()
	if err != nil {
		return "", false, err
	}
	now := s.now()
	var minID int64
	if s.opts.CorpusMaxAge > 0 {
		minID = max(now.Add(-s.opts.CorpusMaxAge).UnixMilli(), 1)
	}
	keep := s.opts.CorpusMaxLen * corpusSeenFactor
	res, err := corpusAppendScript.Run(ctx, s.rdb,
		[]string{s.keys.corpusStream(r.Rules), s.keys.corpusSeen(r.Rules)},
		r.Game, max(now.UnixMilli(), 0), strings.TrimSuffix(string(line), "\n"),
		s.opts.CorpusMaxLen, minID, keep).Slice()
	if err != nil {
		return "", false, fmt.Errorf("persistence: appending game %q to the %s corpus: %w", r.Game, r.Rules, err)
	}
	if len(res) != 3 {
		return "", false, fmt.Errorf("persistence: appending game %q: unexpected reply %v", r.Game, res)
	}
	n, _ := res[0].(int64)
	id, _ = res[1].(string)
	length, _ := res[2].(int64)
	// The index of corpora (another slot) is written when a stream starts,
	// and again on a duplicate, in case a first attempt failed after the
	// append.
	if n == 0 || length <= 1 {
		if err := s.rdb.SAdd(ctx, s.keys.corpusIndex(), r.Rules).Err(); err != nil {
			return id, n == 1, fmt.Errorf("persistence: indexing the %s corpus: %w", r.Rules, err)
		}
	}
	return id, n == 1, nil
}

// CorpusEntry is one valid record read from the corpus with its stream ID.
type CorpusEntry struct {
	// ID is the stream entry ID ("ms-seq"), the position a checkpoint stores.
	ID string
	// Record is the decoded, validated record.
	Record CorpusRecord
}

// CorruptEntry is a stream entry that does not decode or validate; readers
// report it and go on.
type CorruptEntry struct {
	// ID is the stream entry ID.
	ID string
	// Err says what is wrong; it wraps ErrCorrupt.
	Err error
}

// CorpusBatch is what ReadCorpus returns.
type CorpusBatch struct {
	// Records are the valid records, in stream order.
	Records []CorpusEntry
	// Corrupt are the entries skipped because they do not decode.
	Corrupt []CorruptEntry
	// Last is the ID of the last entry read, valid or corrupt; pass it as
	// after to read on, and to AdvanceCheckpoint once the batch is used. It
	// is the after argument when nothing was read.
	Last string
}

// ReadCorpus reads up to n entries (n <= 0: 1000) of the rules' corpus
// that come after the stream ID after ("" or "0": from the start). Corrupt
// entries are returned in Corrupt with their IDs and never stop the read.
func (s *Store) ReadCorpus(ctx context.Context, rules, after string, n int64) (CorpusBatch, error) {
	if n <= 0 {
		n = 1000
	}
	if after == "" {
		after = "0"
	}
	start := "(" + after
	if after == "0" || after == "0-0" {
		start = "-"
	}
	msgs, err := s.rdb.XRangeN(ctx, s.keys.corpusStream(rules), start, "+", n).Result()
	if err != nil {
		return CorpusBatch{}, fmt.Errorf("persistence: reading the %s corpus after %s: %w", rules, after, err)
	}
	b := CorpusBatch{Last: after}
	for _, m := range msgs {
		b.Last = m.ID
		r, err := decodeCorpusEntry(rules, m)
		if err != nil {
			b.Corrupt = append(b.Corrupt, CorruptEntry{ID: m.ID, Err: err})
			continue
		}
		b.Records = append(b.Records, CorpusEntry{ID: m.ID, Record: r})
	}
	return b, nil
}

// decodeCorpusEntry decodes and validates one stream entry.
func decodeCorpusEntry(rules string, m redis.XMessage) (CorpusRecord, error) {
	raw, ok := m.Values[corpusFieldRecord].(string)
	if !ok {
		return CorpusRecord{}, fmt.Errorf("%w: %s corpus entry %s has no %q field", ErrCorrupt, rules, m.ID, corpusFieldRecord)
	}
	r, err := DecodeCorpusRecord([]byte(raw))
	if err != nil {
		return CorpusRecord{}, fmt.Errorf("%w: %s corpus entry %s: %w", ErrCorrupt, rules, m.ID, err)
	}
	if r.Rules != rules {
		return CorpusRecord{}, fmt.Errorf("%w: %s corpus entry %s holds a %s game", ErrCorrupt, rules, m.ID, r.Rules)
	}
	if g, _ := m.Values[corpusFieldGame].(string); g != r.Game {
		return CorpusRecord{}, fmt.Errorf("%w: %s corpus entry %s: game field %q, record %q", ErrCorrupt, rules, m.ID, g, r.Game)
	}
	return r, nil
}

// ScanCorpus reads the rules' corpus after the stream ID after to its end,
// page by page, calling fn for every valid record and corrupt (if not nil)
// for every corrupt entry. It returns the ID of the last entry read (after
// if none). At the first error from fn it stops and returns that error and
// the ID of the record fn failed on.
func (s *Store) ScanCorpus(ctx context.Context, rules, after string, fn func(CorpusEntry) error, corrupt func(CorruptEntry)) (last string, err error) {
	const page = 1000
	last = after
	for {
		b, err := s.ReadCorpus(ctx, rules, last, page)
		if err != nil {
			return last, err
		}
		for _, c := range b.Corrupt {
			if corrupt != nil {
				corrupt(c)
			}
		}
		for _, e := range b.Records {
			if err := fn(e); err != nil {
				return e.ID, err
			}
		}
		if len(b.Records)+len(b.Corrupt) < page {
			return b.Last, nil
		}
		last = b.Last
	}
}

// corpusAdvanceScript moves a checkpoint forward, never back.
// KEYS[1] the checkpoints hash; ARGV[1] consumer, ARGV[2] stream ID.
// Returns 1 when moved, 0 when the stored checkpoint is already at or past it.
var corpusAdvanceScript = redis.NewScript(`
local function parse(id)
  local ms, seq = string.match(id, '^(%d+)-(%d+)$')
  if not ms then ms, seq = string.match(id, '^(%d+)$'), '0' end
  return tonumber(ms), tonumber(seq)
end
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if cur then
  local cm, cs = parse(cur)
  local nm, ns = parse(ARGV[2])
  if cm and (nm < cm or (nm == cm and ns <= cs)) then
    return 0
  end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
`)

// Checkpoint returns the last stream ID the consumer has consumed from the
// rules' corpus, "0" if it has none yet. Pass it to ReadCorpus or
// ScanCorpus as after.
func (s *Store) Checkpoint(ctx context.Context, rules, consumer string) (string, error) {
	id, err := s.rdb.HGet(ctx, s.keys.corpusCheckpoints(rules), consumer).Result()
	if errors.Is(err, redis.Nil) {
		return "0", nil
	}
	if err != nil {
		return "", fmt.Errorf("persistence: reading checkpoint %q of the %s corpus: %w", consumer, rules, err)
	}
	return id, nil
}

// AdvanceCheckpoint records that consumer has consumed the rules' corpus up
// to and including the stream ID id; call it after a successful run. A
// checkpoint only moves forward: advancing to an ID at or before the stored
// one changes nothing (so a late retry cannot rewind it).
func (s *Store) AdvanceCheckpoint(ctx context.Context, rules, consumer, id string) error {
	if _, _, ok := parseStreamID(id); !ok || consumer == "" {
		return fmt.Errorf("%w: checkpoint %q for consumer %q; want a stream ID \"ms-seq\" and a consumer name", ErrInvalid, id, consumer)
	}
	if err := corpusAdvanceScript.Run(ctx, s.rdb, []string{s.keys.corpusCheckpoints(rules)}, consumer, id).Err(); err != nil {
		return fmt.Errorf("persistence: advancing checkpoint %q of the %s corpus: %w", consumer, rules, err)
	}
	return nil
}

// ReadNew reads up to n corpus entries the consumer has not consumed yet
// (those after its checkpoint). It does not move the checkpoint: call
// AdvanceCheckpoint with the batch's Last once the run has succeeded.
func (s *Store) ReadNew(ctx context.Context, rules, consumer string, n int64) (CorpusBatch, error) {
	after, err := s.Checkpoint(ctx, rules, consumer)
	if err != nil {
		return CorpusBatch{}, err
	}
	return s.ReadCorpus(ctx, rules, after, n)
}

// parseStreamID splits "ms-seq" (or "ms") into its numbers.
func parseStreamID(id string) (ms, seq uint64, ok bool) {
	a, b, dash := strings.Cut(id, "-")
	ms, err := strconv.ParseUint(a, 10, 64)
	if err != nil {
		return 0, 0, false
	}
	if dash {
		if seq, err = strconv.ParseUint(b, 10, 64); err != nil {
			return 0, 0, false
		}
	}
	return ms, seq, true
}

// streamIDTime returns the time in a stream ID.
func streamIDTime(id string) time.Time {
	ms, _, _ := parseStreamID(id)
	return time.UnixMilli(int64(ms)).UTC()
}

// CorpusStats describes one rules' corpus.
type CorpusStats struct {
	// Rules is the rules key, like "3x3k3".
	Rules string
	// Count is the number of records retained (corrupt ones included).
	Count int64
	// First and Last are when the oldest and newest retained records were
	// appended (the times in their stream IDs); zero when Count is 0.
	First, Last time.Time
}

// CorpusStats returns the count and first and last append times of the
// rules' corpus; an empty or missing corpus has Count 0.
func (s *Store) CorpusStats(ctx context.Context, rules string) (CorpusStats, error) {
	key := s.keys.corpusStream(rules)
	pipe := s.rdb.Pipeline()
	n := pipe.XLen(ctx, key)
	first := pipe.XRangeN(ctx, key, "-", "+", 1)
	last := pipe.XRevRangeN(ctx, key, "+", "-", 1)
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return CorpusStats{}, fmt.Errorf("persistence: stats of the %s corpus: %w", rules, err)
	}
	st := CorpusStats{Rules: rules, Count: n.Val()}
	if f := first.Val(); len(f) > 0 {
		st.First = streamIDTime(f[0].ID)
	}
	if l := last.Val(); len(l) > 0 {
		st.Last = streamIDTime(l[0].ID)
	}
	return st, nil
}

// CorpusSummary returns the stats of every rules' corpus, sorted by rules.
func (s *Store) CorpusSummary(ctx context.Context) ([]CorpusStats, error) {
	rules, err := s.rdb.SMembers(ctx, s.keys.corpusIndex()).Result()
	if err != nil {
		return nil, fmt.Errorf("persistence: listing corpora: %w", err)
	}
	sort.Strings(rules)
	out := make([]CorpusStats, 0, len(rules))
	for _, r := range rules {
		st, err := s.CorpusStats(ctx, r)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}
