//! A discrete-event simulator that drives the real `staggered` schedules and
//! retry decision on virtual time. The scenarios land with their issues.

#![deny(missing_docs)]
#![forbid(unsafe_code)]
