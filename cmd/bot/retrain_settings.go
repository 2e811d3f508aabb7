package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Defaults of the retrain job's settings.
const (
	defaultRetrainInterval  = 24 * time.Hour
	defaultRetrainMinGames  = 50
	defaultRetrainTimeLimit = 20 * time.Minute
	defaultRetrainCPUShare  = 0.5
)

// retrainSettings are the retrain job's settings from the environment,
// shared by serve (the periodic job, /ttt-admin retrain) and bot retrain.
type retrainSettings struct {
	interval  time.Duration // RETRAIN_INTERVAL; 0 = no periodic job
	minGames  int           // RETRAIN_MIN_GAMES
	timeLimit time.Duration // RETRAIN_TIME_LIMIT
	cpuShare  float64       // RETRAIN_CPU_SHARE
}

// loadRetrainSettings reads the RETRAIN_* settings with getenv, returning
// the defaults for those unset and a message for each one that is wrong.
func loadRetrainSettings(getenv func(string) string) (retrainSettings, []string) {
	get := func(k string) string { return strings.TrimSpace(getenv(k)) }
	s := retrainSettings{interval: defaultRetrainInterval, minGames: defaultRetrainMinGames,
		timeLimit: defaultRetrainTimeLimit, cpuShare: defaultRetrainCPUShare}
	var problems []string
	if v := get("RETRAIN_INTERVAL"); v != "" {
		d, err := time.ParseDuration(v)
		if v == "0" {
			d, err = 0, nil
		}
		if err != nil || d < 0 || (d > 0 && d < time.Minute) {
			problems = append(problems, fmt.Sprintf("RETRAIN_INTERVAL %q is not a duration of at least 1m, like 24h, or 0 (no periodic job)", v))
		}
		s.interval = d
	}
	if v := get("RETRAIN_MIN_GAMES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			problems = append(problems, fmt.Sprintf("RETRAIN_MIN_GAMES %q is not a whole number, 1 or more", v))
		}
		s.minGames = n
	}
	if v := get("RETRAIN_TIME_LIMIT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Second {
			problems = append(problems, fmt.Sprintf("RETRAIN_TIME_LIMIT %q is not a duration of at least 1s, like 20m", v))
		}
		s.timeLimit = d
	}
	if v := get("RETRAIN_CPU_SHARE"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || f <= 0 || f > 1 {
			problems = append(problems, fmt.Sprintf("RETRAIN_CPU_SHARE %q is not a number over 0 and at most 1, like 0.5", v))
		}
		s.cpuShare = f
	}
	return s, problems
}
