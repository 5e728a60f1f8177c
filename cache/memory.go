package cache

import (
	"container/list"
	"sync"
)

// Memory is a bounded LRU map from key to a compiled value.
type Memory struct {
	mu    sync.Mutex
	max   int
	order *list.List // front = most recent; values are *item
	items map[string]*list.Element
}

type item struct {
	key string
	val any
}

// NewMemory makes an LRU holding at most max entries (0 means 256).
func NewMemory(max int) *Memory {
	if max <= 0 {
		max = 256
	}
	return &Memory{max: max, order: list.New(), items: map[string]*list.Element{}}
}

// Get returns the value under key.
func (m *Memory) Get(key string) (any, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.items[key]; ok {
		m.order.MoveToFront(e)
		return e.Value.(*item).val, true
	}
	return nil, false
}

// Put stores a value, evicting the least recently used beyond the bound.
func (m *Memory) Put(key string, val any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.items[key]; ok {
		e.Value.(*item).val = val
		m.order.MoveToFront(e)
		return
	}
	m.items[key] = m.order.PushFront(&item{key, val})
	for m.order.Len() > m.max {
		last := m.order.Back()
		m.order.Remove(last)
		delete(m.items, last.Value.(*item).key)
	}
}

// Len is the number of entries.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.order.Len()
}
