package own

import (
	"testing"
	"unsafe"
)

type arraysMsg struct {
	data  []byte
	nums  []int64
	ptrs  []*int
	words map[string]int
}

// CheckArrays keeps what a field still holds, with the capacity recorded,
// and drops what it does not: a field replaced, cut at its front, given
// another capacity, or handed another field's array, which is then kept once
// only, in its own field. Forget drops a view's array. Recycle puts back
// what it kept, emptied, in its field; the rest stays as the reset left it.
func TestCheckArrays(t *testing.T) {
	if Quarantine {
		t.Skip("quarantine builds keep nothing")
	}
	ints := []int{1, 2}
	m := &arraysMsg{
		data:  make([]byte, 4, 8),
		nums:  make([]int64, 3, 4),
		ptrs:  []*int{&ints[0], &ints[1]},
		words: map[string]int{"a": 1},
	}
	other := &arraysMsg{data: make([]byte, 2), nums: make([]int64, 1)}
	var o Record
	logAll := func(x *arraysMsg) {
		if cap(x.data) > 0 {
			o.LogArray(unsafe.Pointer(&x.data), unsafe.Pointer(unsafe.SliceData(x.data)), cap(x.data), KeepBytes{})
		}
		if cap(x.nums) > 0 {
			o.LogArray(unsafe.Pointer(&x.nums), unsafe.Pointer(unsafe.SliceData(x.nums)), cap(x.nums), KeepScalars[int64]{})
		}
		if cap(x.ptrs) > 0 {
			o.LogArray(unsafe.Pointer(&x.ptrs), unsafe.Pointer(unsafe.SliceData(x.ptrs)), cap(x.ptrs), KeepCleared[*int]{})
		}
		if x.words != nil {
			o.LogArray(unsafe.Pointer(&x.words), *(*unsafe.Pointer)(unsafe.Pointer(&x.words)), 0, KeepMap[string, int]{})
		}
	}
	logAll(m)
	logAll(other)
	data, ptrs, words := m.data, m.ptrs, m.words
	// The handler: m.nums cut at its front, other.data given m's data array
	// (m keeps it), other.nums replaced by a slice of its own.
	m.nums = m.nums[1:]
	other.data = m.data[:1]
	mine := []int64{42}
	other.nums = mine
	o.CheckArrays()
	*m, *other = arraysMsg{}, arraysMsg{} // the reset
	o.Recycle(true)
	if unsafe.SliceData(m.data) != unsafe.SliceData(data) || len(m.data) != 0 || cap(m.data) != 8 {
		t.Errorf("m.data = %p len %d cap %d, want its array back, empty", unsafe.SliceData(m.data), len(m.data), cap(m.data))
	}
	if m.nums != nil {
		t.Error("m.nums, cut at its front, was kept")
	}
	if unsafe.SliceData(m.ptrs) != unsafe.SliceData(ptrs) || len(m.ptrs) != 0 || ptrs[0] != nil || ptrs[1] != nil {
		t.Errorf("m.ptrs = %v, its array %v: want it back, empty and cleared", m.ptrs, ptrs)
	}
	if m.words == nil || len(m.words) != 0 || len(words) != 0 {
		t.Errorf("m.words = %v: want the map back, empty", m.words)
	}
	if other.data != nil || other.nums != nil {
		t.Errorf("other kept %p and %v: another field's array, and the caller's", unsafe.SliceData(other.data), other.nums)
	}
	if mine[0] != 42 {
		t.Error("the caller's slice was written into")
	}

	// A view (Forget) is dropped; so is everything after Clear.
	m.data = make([]byte, 0, 16)
	logAll(m)
	o.Forget(unsafe.Pointer(unsafe.SliceData(m.data)))
	kept := m.data
	o.CheckArrays()
	*m = arraysMsg{}
	o.Recycle(true)
	if m.data != nil {
		t.Error("a forgotten array was kept")
	}
	m.data = kept
	logAll(m)
	o.Clear()
	*m = arraysMsg{}
	o.CheckArrays()
	o.Recycle(true)
	if m.data != nil {
		t.Error("an array recorded before Clear was kept")
	}
}

// In checked builds, what is kept is poisoned first: bytes and numbers.
func TestCheckArraysPoisons(t *testing.T) {
	if !Checked {
		t.Skip("poisoning is for checked builds")
	}
	m := &arraysMsg{data: []byte{1, 2, 3}, nums: []int64{7}}
	data, nums := m.data, m.nums
	var o Record
	o.LogArray(unsafe.Pointer(&m.data), unsafe.Pointer(unsafe.SliceData(m.data)), cap(m.data), KeepBytes{})
	o.LogArray(unsafe.Pointer(&m.nums), unsafe.Pointer(unsafe.SliceData(m.nums)), cap(m.nums), KeepScalars[int64]{})
	o.CheckArrays()
	*m = arraysMsg{}
	o.Recycle(true)
	if data[0] != 0xDE || data[1] != 0xAD || nums[0] == 7 {
		t.Errorf("kept memory not poisoned: %x %x", data, nums)
	}
}
