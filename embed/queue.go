package embed

// queue holds the strings waiting for the model, grouped by the padded
// length they run at (see padLen): a batch holds one group's strings only,
// so a string's vector never depends on what it was batched with. The
// sessions take batches from it one at a time (next), as each becomes
// free: batches are formed when a session can run one, from everything
// queued by then, not in rounds. Not safe for concurrent use: the
// Embedder guards it with its mutex.
type queue struct {
	groups map[int][]*job // by padded length; each oldest first
	n      int            // jobs queued
	seq    int64          // arrival counter (job.seq)
}

func newQueue() *queue { return &queue{groups: make(map[int][]*job)} }

// add queues jobs, each with its padded length set.
func (q *queue) add(jobs []*job) {
	for _, jb := range jobs {
		q.seq++
		jb.seq = q.seq
		q.groups[jb.padded] = append(q.groups[jb.padded], jb)
	}
	q.n += len(jobs)
}

// next removes and returns one batch: from a group that fills a whole
// batch if there is one, else from any group; among those, the group
// whose oldest string came first, so that callers are served in the
// order they asked and the oldest caller's strings finish first. rows
// gives the batch rows for a padded length. nil when empty.
func (q *queue) next(rows func(padded int) int) []*job {
	best, bestFull := -1, false
	for p, g := range q.groups {
		full := len(g) >= rows(p)
		switch {
		case best < 0, full && !bestFull:
		case full == bestFull && g[0].seq < q.groups[best][0].seq:
		default:
			continue
		}
		best, bestFull = p, full
	}
	if best < 0 {
		return nil
	}
	g := q.groups[best]
	k := min(len(g), rows(best))
	batch := g[:k:k]
	if k == len(g) {
		delete(q.groups, best)
	} else {
		q.groups[best] = g[k:]
	}
	q.n -= k
	return batch
}

// drain removes and returns every queued job.
func (q *queue) drain() []*job {
	var all []*job
	for _, g := range q.groups {
		all = append(all, g...)
	}
	clear(q.groups)
	q.n = 0
	return all
}
