package model

// taskStore holds the tasks a BlockingQueue has accepted. The pool keeps
// parked workers itself (the wait list); with zero wake-up latency a task
// offered while a worker is parked never enters the store (see doc.go).
type taskStore interface {
	// offer inserts t if there is room, as BlockingQueue.offer(e).
	offer(t *Task) bool
	// poll removes and returns the head, as BlockingQueue.poll(), or nil
	// if the store is empty. The task it points to stays as it is until
	// the store's next change: the caller copies what it keeps.
	poll() *Task
	// peek returns the head without removing it.
	peek() (*Task, bool)
	size() int
	// each visits the stored tasks in the order drainTo would return them
	// (R28). fn must not modify the store.
	each(fn func(*Task))
}

// newStore returns the store for a queue kind.
func newStore(k QueueKind, capacity int) taskStore {
	switch k {
	case Synchronous:
		return syncStore{}
	case Priority:
		return &priorityStore{}
	case DelayedWorkQueue:
		return &delayStore{}
	}
	return &ringStore{capacity: capacity}
}

// ringStore is the FIFO storage of LinkedBlockingQueue, ArrayBlockingQueue
// and Tomcat's TaskQueue: offer at the tail, poll at the head (R44, R48).
// It grows by doubling, so memory follows the queue's peak length, not its
// capacity.
type ringStore struct {
	buf      []Task
	head, n  int
	capacity int
}

func (r *ringStore) offer(t *Task) bool {
	if r.n >= r.capacity {
		return false
	}
	if r.n == len(r.buf) {
		r.grow()
	}
	r.buf[(r.head+r.n)&(len(r.buf)-1)] = *t
	r.n++
	return true
}

func (r *ringStore) grow() {
	size := 2 * len(r.buf)
	if size == 0 {
		size = 16
	}
	buf := make([]Task, size)
	for i := 0; i < r.n; i++ {
		buf[i] = r.buf[(r.head+i)&(len(r.buf)-1)]
	}
	r.buf, r.head = buf, 0
}

func (r *ringStore) poll() *Task {
	if r.n == 0 {
		return nil
	}
	t := &r.buf[r.head] // a free slot now, written by a later offer only
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.n--
	return t
}

func (r *ringStore) peek() (*Task, bool) {
	if r.n == 0 {
		return nil, false
	}
	return &r.buf[r.head], true
}

func (r *ringStore) size() int { return r.n }

func (r *ringStore) each(fn func(*Task)) {
	for i := 0; i < r.n; i++ {
		fn(&r.buf[(r.head+i)&(len(r.buf)-1)])
	}
}

// syncStore is SynchronousQueue's storage: none. Its offer succeeds only by
// direct hand-off to a parked worker, which the pool does before asking the
// store (R49).
type syncStore struct{}

func (syncStore) offer(*Task) bool    { return false }
func (syncStore) poll() *Task         { return nil }
func (syncStore) peek() (*Task, bool) { return nil, false }
func (syncStore) size() int           { return 0 }
func (syncStore) each(func(*Task))    {}

// priorityStore is PriorityBlockingQueue's binary heap (R53), with the
// JDK's own siftUpComparable/siftDownComparable, so tasks of equal priority
// leave in exactly the order the JDK's heap gives them. Unbounded.
type priorityStore struct {
	es  []Task
	out Task // the task poll returned
}

// less reports whether a sorts before b: the tasks' compareTo by priority.
func cmpTask(a, b *Task) int {
	switch {
	case a.Priority < b.Priority:
		return -1
	case a.Priority > b.Priority:
		return 1
	}
	return 0
}

func (p *priorityStore) offer(t *Task) bool {
	p.es = append(p.es, Task{})
	k := len(p.es) - 1
	for k > 0 {
		parent := (k - 1) >> 1
		if cmpTask(t, &p.es[parent]) >= 0 {
			break
		}
		p.es[k] = p.es[parent]
		k = parent
	}
	p.es[k] = *t
	return true
}

func (p *priorityStore) poll() *Task {
	if len(p.es) == 0 {
		return nil
	}
	p.out = p.es[0]
	n := len(p.es) - 1
	x := p.es[n]
	p.es = p.es[:n]
	if n > 0 {
		k, half := 0, n>>1
		for k < half {
			child := 2*k + 1
			if right := child + 1; right < n && cmpTask(&p.es[child], &p.es[right]) > 0 {
				child = right
			}
			if cmpTask(&x, &p.es[child]) <= 0 {
				break
			}
			p.es[k] = p.es[child]
			k = child
		}
		p.es[k] = x
	}
	return &p.out
}

func (p *priorityStore) peek() (*Task, bool) {
	if len(p.es) == 0 {
		return nil, false
	}
	return &p.es[0], true
}

func (p *priorityStore) size() int { return len(p.es) }

// each visits tasks in the order drainTo returns them: repeated dequeues,
// i.e. priority order with the heap's tie order. It works on a copy.
func (p *priorityStore) each(fn func(*Task)) {
	c := priorityStore{es: append([]Task(nil), p.es...)}
	for {
		t := c.poll()
		if t == nil {
			return
		}
		fn(t)
	}
}
