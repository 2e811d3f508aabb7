package shards_test

import (
	"fmt"

	"github.com/tttbot/ttt-bot/bot/shards"
)

// Recommended picks the shard count: SHARD_COUNT when set, else what
// GET /gateway/bot recommends.
func ExampleRecommended() {
	fmt.Println(shards.Recommended(3, 0))  // SHARD_COUNT unset
	fmt.Println(shards.Recommended(3, 16)) // SHARD_COUNT=16
	fmt.Println(shards.LockName(16, 5))
	// Output:
	// 3
	// 16
	// shard:16:5
}
