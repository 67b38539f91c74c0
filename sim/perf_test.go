package sim

import (
	"runtime"
	"testing"
)

// TestHeapSysIsMemStats: perf.json's go_heap_sys_bytes, read through
// runtime/metrics, is runtime.MemStats.HeapSys. The two accountings differ
// by a few pages of the runtime's own metadata (32 KiB measured with Go
// 1.26); the bound, 16 pages, is well under what a wrong list of classes
// would be off by: the stacks class alone is some 300 KiB, the released
// pages megabytes.
func TestHeapSysIsMemStats(t *testing.T) {
	keep := make([][]byte, 0, 1000)
	for i := range 1000 {
		keep = append(keep, make([]byte, 64*i))
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	got := heapSys()
	const slack = 16 * 8192
	if d := int64(got) - int64(ms.HeapSys); d < -slack || d > slack {
		t.Fatalf("heapSys %d, MemStats.HeapSys %d (differ by %d bytes; stacks %d)", got, ms.HeapSys, d, ms.StackInuse)
	}
	t.Logf("heapSys %d, MemStats.HeapSys %d", got, ms.HeapSys)
	runtime.KeepAlive(keep)
}
