package persistence

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Candidate slot: beside a rules' model registry (same hash tag, so the
// metadata and the blob are written in one MULTI on one slot), the last
// network the training job trained but did not promote:
//
//	ttt:model:{<rules>}:candidate:meta   string, CandidateMeta as JSON
//	ttt:model:{<rules>}:candidate:blob   string, the weights
//
// A rules has at most one kept candidate; the next rejected one replaces it.

// modelCandidateMeta holds the kept candidate's metadata.
func (k keys) modelCandidateMeta(rules string) string {
	return k.modelBase(rules) + ":candidate:meta"
}

// modelCandidateBlob holds the kept candidate's weights.
func (k keys) modelCandidateBlob(rules string) string {
	return k.modelBase(rules) + ":candidate:blob"
}

// CandidateMeta describes a network the training job trained but did not
// promote, kept (one per rules) so that a person can inspect it and read
// why it was rejected.
type CandidateMeta struct {
	// Rules is the rules key the network plays, like "3x3k3".
	Rules string `json:"rules"`
	// Created is when the candidate was kept.
	Created time.Time `json:"created"`
	// Report is the training job's report (any JSON value), saying why the
	// candidate was not promoted.
	Report json.RawMessage `json:"report,omitempty"`
	// SHA256 is the hex SHA-256 of the blob, checked on every load.
	SHA256 string `json:"sha256"`
	// Size is the blob's length in bytes.
	Size int64 `json:"size"`
}

// SaveCandidate keeps blob as the rules' rejected candidate, replacing the
// one kept before, in one atomic step (metadata and blob together). It
// fills in m's Rules, Created, SHA256 and Size; m.Report, if set, must be
// JSON. It does not touch the registry: the current model stays.
func (s *Store) SaveCandidate(ctx context.Context, rules string, m CandidateMeta, blob []byte) (CandidateMeta, error) {
	if rules == "" || len(m.Report) > 0 && !json.Valid(m.Report) {
		return CandidateMeta{}, fmt.Errorf("%w: candidate for rules %q: rules are required and the report must be JSON", ErrInvalid, rules)
	}
	sum := sha256.Sum256(blob)
	m.Rules, m.Created, m.SHA256, m.Size = rules, s.now().UTC().Truncate(time.Millisecond), hex.EncodeToString(sum[:]), int64(len(blob))
	meta, err := json.Marshal(m)
	if err != nil {
		return CandidateMeta{}, fmt.Errorf("persistence: encoding the %s candidate's metadata: %w", rules, err)
	}
	_, err = s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, s.keys.modelCandidateMeta(rules), meta, 0)
		p.Set(ctx, s.keys.modelCandidateBlob(rules), blob, 0)
		return nil
	})
	if err != nil {
		return CandidateMeta{}, fmt.Errorf("persistence: keeping the %s candidate: %w", rules, err)
	}
	return m, nil
}

// LoadCandidate returns the rules' kept candidate and its metadata, after
// checking the blob's SHA-256 (a mismatch fails with ErrCorrupt). It fails
// with ErrNotFound when no candidate is kept.
func (s *Store) LoadCandidate(ctx context.Context, rules string) (CandidateMeta, []byte, error) {
	vals, err := s.rdb.MGet(ctx, s.keys.modelCandidateMeta(rules), s.keys.modelCandidateBlob(rules)).Result()
	if err != nil {
		return CandidateMeta{}, nil, fmt.Errorf("persistence: loading the %s candidate: %w", rules, err)
	}
	metaRaw, ok1 := vals[0].(string)
	blob, ok2 := vals[1].(string)
	if !ok1 && !ok2 {
		return CandidateMeta{}, nil, fmt.Errorf("%w: no %s candidate kept", ErrNotFound, rules)
	}
	if !ok1 || !ok2 {
		return CandidateMeta{}, nil, fmt.Errorf("%w: the %s candidate lacks its metadata or its blob", ErrCorrupt, rules)
	}
	var m CandidateMeta
	if err := json.Unmarshal([]byte(metaRaw), &m); err != nil {
		return CandidateMeta{}, nil, fmt.Errorf("%w: the %s candidate's metadata: %v", ErrCorrupt, rules, err)
	}
	if m.Rules != rules {
		return CandidateMeta{}, nil, fmt.Errorf("%w: the %s candidate's metadata names rules %q", ErrCorrupt, rules, m.Rules)
	}
	sum := sha256.Sum256([]byte(blob))
	if got := hex.EncodeToString(sum[:]); got != m.SHA256 || int64(len(blob)) != m.Size {
		return CandidateMeta{}, nil, fmt.Errorf("%w: the %s candidate's blob has SHA-256 %s and %d bytes, its metadata says %s and %d",
			ErrCorrupt, rules, got, len(blob), m.SHA256, m.Size)
	}
	return m, []byte(blob), nil
}

// DeleteCandidate drops the rules' kept candidate, if any.
func (s *Store) DeleteCandidate(ctx context.Context, rules string) error {
	if err := s.rdb.Del(ctx, s.keys.modelCandidateMeta(rules), s.keys.modelCandidateBlob(rules)).Err(); err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("persistence: dropping the %s candidate: %w", rules, err)
	}
	return nil
}
