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

// A field that a handler cut to a smaller capacity, from the same start
// (a full slice expression), is dropped: the rest of the array may be
// another owner's now (the handler handed it on), and a keep of the
// capacity recorded would give the next decode that rest to write over.
func TestCheckArraysDropsSmallerCapacity(t *testing.T) {
	if Quarantine {
		t.Skip("quarantine builds keep nothing")
	}
	m := &arraysMsg{data: []byte{1, 2, 3, 4, 5, 6, 7, 8}}
	var o Record
	o.LogArray(unsafe.Pointer(&m.data), unsafe.Pointer(unsafe.SliceData(m.data)), cap(m.data), KeepBytes{})
	// The handler: the field keeps the first half, the second half is
	// handed on to another owner.
	handedOn := m.data[4:8]
	m.data = m.data[:4:4]
	o.CheckArrays()
	*m = arraysMsg{} // the reset
	o.Recycle(true)
	if m.data != nil {
		t.Fatalf("the field, cut to capacity 4, got back %d bytes of capacity: the next decode would write over the %d bytes handed on", cap(m.data), len(handedOn))
	}
	if handedOn[0] != 5 || handedOn[3] != 8 {
		t.Errorf("the part handed on was written into: %x", handedOn)
	}
}

// In quarantine builds, Recycle puts back none of the arrays and maps it
// recorded: each is poisoned (or cleared) and left out of its field, so that
// the next decode allocates its own and whatever still holds the old one
// keeps reading the pattern, never the next message.
func TestRecycleInQuarantineKeepsNothing(t *testing.T) {
	if !Quarantine {
		t.Skip("only quarantine builds leave out what Recycle would keep")
	}
	m := &arraysMsg{data: []byte{1, 2, 3}, nums: []int64{7}, ptrs: []*int{new(int)}, words: map[string]int{"a": 1}}
	data, nums := m.data, m.nums
	var o Record
	o.LogArray(unsafe.Pointer(&m.data), unsafe.Pointer(unsafe.SliceData(m.data)), cap(m.data), KeepBytes{})
	o.LogArray(unsafe.Pointer(&m.nums), unsafe.Pointer(unsafe.SliceData(m.nums)), cap(m.nums), KeepScalars[int64]{})
	o.LogArray(unsafe.Pointer(&m.ptrs), unsafe.Pointer(unsafe.SliceData(m.ptrs)), cap(m.ptrs), KeepCleared[*int]{})
	o.LogArray(unsafe.Pointer(&m.words), *(*unsafe.Pointer)(unsafe.Pointer(&m.words)), 0, KeepMap[string, int]{})
	o.CheckArrays()
	*m = arraysMsg{} // the reset
	o.Recycle(true)
	if m.data != nil || m.nums != nil || m.ptrs != nil || m.words != nil {
		t.Errorf("a quarantine build put memory back into the fields, for the next decode to write into: %+v", m)
	}
	if data[0] != 0xDE || nums[0] == 7 {
		t.Errorf("what was left out is not poisoned: %x %x", data, nums)
	}
}
