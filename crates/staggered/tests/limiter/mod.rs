//! The adaptive limiter: tokens are conserved under contention, waits go
//! through the sleepers (never a real sleep), a dropped wait takes nothing,
//! and every driver takes a token before every attempt and reports every
//! response.

mod bounds;
mod concurrency;
mod drivers;
mod quota;
mod recovery;
