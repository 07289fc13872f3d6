//! A lock node's own clock. Leases expire by this clock, so a node whose
//! clock runs fast or jumps ahead frees a lock early: the holder, timing its
//! lease by its own clock, still believes.

/// `node_us = real_us × (1 + ppm / 10⁶) + offset_us`
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NodeClock {
    pub ppm: i32,
    pub offset_us: i64,
}

const MILLION: i128 = 1_000_000;

impl NodeClock {
    pub fn read_us(&self, real_us: u64) -> u64 {
        if self.ppm == 0 {
            // The common case, without 128-bit arithmetic.
            return real_us.saturating_add_signed(self.offset_us);
        }
        let real = i128::from(real_us);
        let node = real + real * i128::from(self.ppm) / MILLION + i128::from(self.offset_us);
        node.clamp(0, i128::from(u64::MAX)) as u64
    }

    /// The earliest real time at which the clock reads at least `node_us`.
    pub fn real_at_us(&self, node_us: u64, now_us: u64) -> u64 {
        let real_us = self.first_real_at_us(node_us, now_us);
        // Never the past, and the clock does read `node_us` by then (short
        // of the end of time, where it saturates).
        crate::invariant!(real_us >= now_us, "a node's deadline scheduled in the past: {real_us} < {now_us} µs");
        crate::invariant!(
            real_us == u64::MAX || self.read_us(real_us) >= node_us,
            "at {real_us} µs a node's clock ({self:?}) reads {}, short of {node_us}",
            self.read_us(real_us)
        );
        real_us
    }

    fn first_real_at_us(&self, node_us: u64, now_us: u64) -> u64 {
        if self.ppm == 0 {
            return node_us.saturating_add_signed(-self.offset_us).max(now_us);
        }
        let rate = MILLION + i128::from(self.ppm);
        let since_offset = i128::from(node_us) - i128::from(self.offset_us);
        // Ceiling division: never check before the clock gets there.
        let real = (since_offset * MILLION + rate - 1).div_euclid(rate);
        let mut real_us = real.clamp(i128::from(now_us), i128::from(u64::MAX)) as u64;
        // Integer rounding can leave the clock a microsecond short.
        for _ in 0..4 {
            if self.read_us(real_us) >= node_us {
                break;
            }
            real_us += 1;
        }
        real_us
    }

    pub fn jump(&mut self, jump_ms: i64) {
        let offset_us = jump_ms.checked_mul(1000).and_then(|jump_us| self.offset_us.checked_add(jump_us));
        crate::invariant!(offset_us.is_some(), "a clock jump of {jump_ms} ms overflows the offset {} µs", self.offset_us);
        self.offset_us = offset_us.unwrap_or(self.offset_us);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_true_clock_reads_real_time() {
        let clock = NodeClock::default();
        assert_eq!(clock.read_us(10_000_000), 10_000_000);
        assert_eq!(clock.real_at_us(10_000_000, 0), 10_000_000);
    }

    #[test]
    fn a_fast_clock_expires_leases_early() {
        let clock = NodeClock { ppm: 100_000, offset_us: 0 };
        assert_eq!(clock.read_us(10_000_000), 11_000_000);
        let real = clock.real_at_us(10_000_000, 0);
        assert!(clock.read_us(real) >= 10_000_000 && clock.read_us(real - 1) < 10_000_000, "{real}");
    }

    #[test]
    fn a_jump_moves_the_reading_and_never_schedules_the_past() {
        let mut clock = NodeClock::default();
        clock.jump(5_000);
        assert_eq!(clock.read_us(1_000_000), 6_000_000);
        assert_eq!(clock.real_at_us(3_000_000, 1_000_000), 1_000_000);
    }
}
