// Package digits holds what the hand-written decimal writers share: the components that
// format the figures of tens of thousands of events a run (stats samples, requeue delays)
// write two digits at a time rather than through strconv.
package digits

// Pairs holds the two digits of every number below 100, in order: the digits of n are
// Pairs[2n] and Pairs[2n+1].
const Pairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"
