package retrain

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tttbot/ttt-bot/ai/nn"
	"github.com/tttbot/ttt-bot/game"
	"github.com/tttbot/ttt-bot/persistence"
)

// RegistryVersionPrefix starts the nn.Meta.Version of a network that a
// ModelWatcher loaded from the model registry: "redis-7" is the rules'
// registry version 7. Any other version names a shipped default.
const RegistryVersionPrefix = "redis-"

// RegistryVersion returns the model-registry version of a network loaded
// by a ModelWatcher, from its metadata's Version ("redis-7" gives 7), and
// false for a shipped default.
func RegistryVersion(m nn.Meta) (int64, bool) {
	s, ok := strings.CutPrefix(m.Version, RegistryVersionPrefix)
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil && v > 0
}

// subscribeRetry bounds the pause between attempts to subscribe to model
// events while Redis is unreachable.
const subscribeRetry = 5 * time.Second

// ModelWatcher keeps an nn.Set, the networks the neural and humanlike
// levels play, in step with the model registry of a Store: Load fills it
// at start (each rules' current registry version, else the shipped
// default), and Run swaps networks as versions are published or rolled
// back, by this process or any other on the same Redis. A blob that is
// corrupt, truncated or for other rules or another shape is refused with a
// logged error, and the network already live stays live.
type ModelWatcher struct {
	store    *persistence.Store
	set      *nn.Set
	defaults func(rules string) ([]byte, error)
	boards   []string
	log      *slog.Logger

	mu   sync.Mutex
	held map[string]int64 // registry version live in set, by rules; 0 for a shipped default
}

// NewModelWatcher returns a ModelWatcher that loads networks from store
// into set. defaults returns the shipped weights of a rules key (package
// weights' Load), failing with an error that wraps fs.ErrNotExist when
// none are shipped; it may be nil when nothing is shipped. boards are the
// rules keys that must have a network (the bot's preset boards). logger
// receives a line for every network loaded or refused.
func NewModelWatcher(store *persistence.Store, set *nn.Set, defaults func(rules string) ([]byte, error), boards []string, logger *slog.Logger) *ModelWatcher {
	if defaults == nil {
		defaults = func(rules string) ([]byte, error) {
			return nil, fmt.Errorf("retrain: no shipped weights for %s: %w", rules, fs.ErrNotExist)
		}
	}
	return &ModelWatcher{store: store, set: set, defaults: defaults, boards: slices.Clone(boards), log: logger, held: map[string]int64{}}
}

// Load puts a network for every board it was given into the set: the rules'
// current version in the model registry, else (none published, or the
// current one unreadable) the shipped default. Rules with neither get no
// network, and the neural levels refuse them. It returns the failures that
// need attention (Redis unreachable, a registry or shipped blob refused),
// joined, after loading all it could; each is also logged.
func (w *ModelWatcher) Load(ctx context.Context) error {
	var errs []error
	for _, rules := range w.boards {
		errs = append(errs, w.loadCurrent(ctx, rules, true))
	}
	return errors.Join(errs...)
}

// Run keeps the set up to date until ctx is done: it subscribes to the
// Store's model events, loads each published or rolled-back version, and
// after every (re)subscription reloads each rules' current version, since
// events may have been missed meanwhile. While Redis is unreachable it
// retries the subscription.
func (w *ModelWatcher) Run(ctx context.Context) {
	for ctx.Err() == nil {
		events, err := w.store.SubscribeModels(ctx)
		if err != nil {
			if ctx.Err() == nil {
				w.log.Warn("retrain: cannot subscribe to model events; retrying", "err", err, "in", subscribeRetry)
			}
			select {
			case <-ctx.Done():
			case <-time.After(subscribeRetry):
			}
			continue
		}
		// Versions published before the subscription was in place are
		// caught here.
		w.apply(ctx, persistence.ModelEvent{Kind: persistence.ModelResync})
		for ev := range events {
			w.apply(ctx, ev)
		}
	}
}

// apply handles one model event.
func (w *ModelWatcher) apply(ctx context.Context, ev persistence.ModelEvent) {
	switch ev.Kind {
	case persistence.ModelResync:
		for _, rules := range w.watched() {
			_ = w.loadCurrent(ctx, rules, false) // logged
		}
	case persistence.ModelPublished, persistence.ModelRolledBack:
		if ev.Version <= 0 || ev.Rules == "" {
			w.log.Warn("retrain: model event without rules or version ignored", "kind", ev.Kind, "rules", ev.Rules, "version", ev.Version)
			return
		}
		if w.heldVersion(ev.Rules) == ev.Version {
			return
		}
		_ = w.loadVersion(ctx, ev.Rules, ev.Version, ev.Kind) // logged
	}
}

// watched returns the rules to look at on a resync: the boards it was
// given and any other rules the set holds.
func (w *ModelWatcher) watched() []string {
	out := slices.Clone(w.boards)
	for _, r := range w.set.Rules() {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// heldVersion returns the registry version live for rules (0: a shipped
// default or nothing).
func (w *ModelWatcher) heldVersion(rules string) int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.held[rules]
}

// loadCurrent loads rules' current registry version unless it is live
// already. With fallback (at start), a rules key without a usable registry
// version gets its shipped default. Failures are logged and returned.
func (w *ModelWatcher) loadCurrent(ctx context.Context, rules string, fallback bool) error {
	v, err := w.store.CurrentModelVersion(ctx, rules)
	switch {
	case errors.Is(err, persistence.ErrNotFound):
		if fallback {
			return w.loadDefault(rules)
		}
		return nil
	case err != nil:
		w.log.Error("retrain: cannot read the model registry", "rules", rules, "err", err)
		if fallback {
			return errors.Join(err, w.loadDefault(rules))
		}
		return err
	case v == w.heldVersion(rules):
		return nil
	}
	err = w.loadVersion(ctx, rules, v, "load")
	if err != nil && fallback {
		return errors.Join(err, w.loadDefault(rules))
	}
	return err
}

// loadVersion loads version v of rules from the registry and makes it
// live. A blob that fails its checksum, does not parse or is not for
// rules is refused: logged, returned, and the live network is kept.
func (w *ModelWatcher) loadVersion(ctx context.Context, rules string, v int64, why string) error {
	r, err := game.ParseRules(rules)
	if err != nil {
		err = fmt.Errorf("retrain: model registry rules %q: %w", rules, err)
		w.refused(rules, v, "registry", err)
		return err
	}
	pm, blob, err := w.store.LoadModel(ctx, rules, v)
	if err != nil {
		w.refused(rules, v, "registry", err)
		return err
	}
	n, m, err := nn.UnmarshalFor(blob, r)
	if err != nil {
		w.refused(rules, v, "registry", err)
		return err
	}
	m.Version = RegistryVersionPrefix + strconv.FormatInt(v, 10)
	if m.Created.IsZero() {
		m.Created = pm.Created
	}
	if len(m.Eval) == 0 {
		m.Eval = pm.Eval
	}
	w.mu.Lock()
	w.set.Put(n, m)
	w.held[rules] = v
	w.mu.Unlock()
	w.log.Info("retrain: model live", "rules", rules, "source", "registry", "version", v, "why", why,
		"created", pm.Created, "sha256", pm.SHA256, "params", n.Params())
	return nil
}

// loadDefault makes the shipped default of rules live, if there is one.
func (w *ModelWatcher) loadDefault(rules string) error {
	r, err := game.ParseRules(rules)
	if err != nil {
		return fmt.Errorf("retrain: shipped weights for %q: %w", rules, err)
	}
	blob, err := w.defaults(rules)
	if errors.Is(err, fs.ErrNotExist) {
		w.log.Info("retrain: no network for these rules: none published, none shipped", "rules", rules)
		return nil
	}
	if err == nil {
		var n *nn.Net
		var m nn.Meta
		if n, m, err = nn.UnmarshalFor(blob, r); err == nil {
			if m.Version == "" || strings.HasPrefix(m.Version, RegistryVersionPrefix) {
				m.Version = "shipped"
			}
			w.mu.Lock()
			w.set.Put(n, m)
			w.held[rules] = 0
			w.mu.Unlock()
			w.log.Info("retrain: model live", "rules", rules, "source", "shipped", "version", m.Version, "params", n.Params())
			return nil
		}
	}
	w.refused(rules, 0, "shipped", err)
	return err
}

// refused logs a blob that was not made live and why.
func (w *ModelWatcher) refused(rules string, v int64, source string, err error) {
	reason := "unreadable"
	switch {
	case errors.Is(err, nn.ErrCorrupt), errors.Is(err, persistence.ErrCorrupt):
		reason = "corrupt or truncated"
	case errors.Is(err, nn.ErrMismatch):
		reason = "for other rules or another network shape"
	case errors.Is(err, persistence.ErrNotFound):
		reason = "gone from the registry"
	}
	live := "none"
	if r, perr := game.ParseRules(rules); perr == nil {
		if m, ok := w.set.Meta(r); ok {
			live = m.Version
		}
	}
	w.log.Error("retrain: model refused ("+reason+"); the live model stays", "rules", rules, "source", source,
		"version", v, "live", live, "err", err)
}
