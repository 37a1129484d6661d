//! `std::io::ErrorKind`: which I/O failures are worth retrying.

use std::io;

use super::Failure;

/// Whether an I/O error kind is transient: the connection was reset,
/// refused, aborted or not yet made, the peer went away, the operation timed
/// out or was interrupted, the host or network is (for now) unreachable, the
/// resource is busy or would block, or the stream ended early.
pub fn is_transient_io(kind: io::ErrorKind) -> bool {
    use io::ErrorKind as K;
    matches!(
        kind,
        K::ConnectionReset
            | K::ConnectionRefused
            | K::ConnectionAborted
            | K::NotConnected
            | K::BrokenPipe
            | K::TimedOut
            | K::Interrupted
            | K::WouldBlock
            | K::UnexpectedEof
            | K::HostUnreachable
            | K::NetworkUnreachable
            | K::NetworkDown
            | K::ResourceBusy
            | K::AddrInUse
            | K::AddrNotAvailable
    )
}

/// Classifies an I/O error by its kind: transient per [`is_transient_io`],
/// otherwise permanent (not found, permission denied, invalid input, ...).
/// `TimedOut` is a [timeout](Failure::timeout), which the AWS SDK's token
/// bucket charges more than another transient failure.
pub fn classify_io(error: &io::Error) -> Failure {
    match error.kind() {
        io::ErrorKind::TimedOut => Failure::timeout(),
        kind if is_transient_io(kind) => Failure::TRANSIENT,
        _ => Failure::PERMANENT,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::ErrorKind;

    #[test]
    fn network_trouble_is_transient_and_mistakes_are_not() {
        for kind in
            [io::ErrorKind::ConnectionReset, io::ErrorKind::TimedOut, io::ErrorKind::ConnectionRefused]
        {
            assert_eq!(classify_io(&io::Error::from(kind)).kind, ErrorKind::Transient);
        }
        for kind in [io::ErrorKind::NotFound, io::ErrorKind::PermissionDenied, io::ErrorKind::InvalidInput] {
            assert_eq!(classify_io(&io::Error::from(kind)).kind, ErrorKind::Permanent);
        }
    }

    #[test]
    fn a_timed_out_io_error_is_a_timeout() {
        assert_eq!(classify_io(&io::Error::from(io::ErrorKind::TimedOut)), Failure::timeout());
        assert!(!classify_io(&io::Error::from(io::ErrorKind::ConnectionReset)).timed_out);
    }
}
