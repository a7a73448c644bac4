//! Eight bytes at a time in a `u64` ("SWAR"): the tests the matcher's hot paths use to look at
//! a word of a path per step instead of a byte.
//!
//! [`zero_bytes`] flags every zero byte of a word; it may also flag a `0x01` byte just above a
//! zero byte (the subtraction's borrow), so the lowest flag of a word is always real and any
//! other must be confirmed.

/// `0x01` in every byte.
pub(crate) const ONES: u64 = u64::from_ne_bytes([1; 8]);

/// `0x80` in every byte.
const HIGHS: u64 = ONES << 7;

/// The high bit of each zero byte of `x` set (see the module docs for the false flags).
#[inline(always)]
pub(crate) fn zero_bytes(x: u64) -> u64 {
    x.wrapping_sub(ONES) & !x & HIGHS
}

/// `b` in every byte.
#[inline(always)]
pub(crate) const fn splat(b: u8) -> u64 {
    ONES * b as u64
}

/// The eight bytes of `s` from `at` as a little-endian word (byte `at` lowest), or `None`
/// when fewer remain.
#[inline(always)]
pub(crate) fn load(s: &[u8], at: usize) -> Option<u64> {
    let bytes: [u8; 8] = s.get(at..at.checked_add(8)?)?.try_into().ok()?;
    Some(u64::from_le_bytes(bytes))
}

/// The index of the byte that flag `flags`' lowest set bit stands for.
#[inline(always)]
pub(crate) fn first(flags: u64) -> usize {
    flags.trailing_zeros() as usize / 8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lowest_flag_is_a_zero_byte_and_every_zero_byte_is_flagged() {
        for word in [
            0u64,
            1,
            0x0100,
            0x0001_0000_0100,
            u64::MAX,
            0x8000_0000_0000_0001,
        ] {
            for shift in 0..8 {
                let w = word.rotate_left(shift * 8);
                let flags = zero_bytes(w);
                let bytes = w.to_le_bytes();
                for (i, &b) in bytes.iter().enumerate() {
                    if b == 0 {
                        assert_ne!(flags & (0x80 << (i * 8)), 0, "{w:#x} byte {i}");
                    }
                }
                if flags != 0 {
                    assert_eq!(bytes[first(flags)], 0, "{w:#x}");
                }
            }
        }
    }

    #[test]
    fn load_reads_little_endian_and_refuses_short_tails() {
        let s = b"abcdefghi";
        assert_eq!(load(s, 0), Some(u64::from_le_bytes(*b"abcdefgh")));
        assert_eq!(load(s, 1), Some(u64::from_le_bytes(*b"bcdefghi")));
        assert_eq!(load(s, 2), None);
        assert_eq!(load(s, usize::MAX), None);
        assert_eq!(splat(b'/').to_le_bytes(), [b'/'; 8]);
    }
}
