//! ChaCha8 one block at a time: the same word stream as `rand_chacha`'s
//! `ChaCha8Rng` (same key from the seed, 64-bit block counter in words 12
//! and 13, the stream number in words 14 and 15), but a buffer of one block
//! instead of four. A run draws about 60 numbers from three streams, about
//! eight blocks in all; four at a time it computed twelve, a quarter of a
//! counters-only run in WebAssembly, where ChaCha has no SIMD. `rand_core`'s
//! `BlockRng` reads words from either buffer the same way (a 64-bit value
//! that straddles two blocks takes the last word of one and the first of the
//! next), so every draw is the same: `chacha8/tests.rs`
//! compares them, and the pinned traces would change if they differed.

use rand_core::block::{BlockRng, Generator};
use rand_core::{SeedableRng, TryRng};
use std::convert::Infallible;

/// "expand 32-byte k", ChaCha's constant words.
const SIGMA: [u32; 4] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574];
/// ChaCha8: four double rounds.
const DOUBLE_ROUNDS: usize = 4;
const BLOCK_WORDS: usize = 16;

/// The block function's input: constants, key, block counter, stream.
pub struct Core {
    input: [u32; BLOCK_WORDS],
}

impl Core {
    fn block_pos(&self) -> u64 {
        u64::from(self.input[12]) | (u64::from(self.input[13]) << 32)
    }

    fn set_block_pos(&mut self, pos: u64) {
        self.input[12] = pos as u32;
        self.input[13] = (pos >> 32) as u32;
    }
}

#[inline(always)]
fn quarter(x: &mut [u32; BLOCK_WORDS], a: usize, b: usize, c: usize, d: usize) {
    x[a] = x[a].wrapping_add(x[b]);
    x[d] = (x[d] ^ x[a]).rotate_left(16);
    x[c] = x[c].wrapping_add(x[d]);
    x[b] = (x[b] ^ x[c]).rotate_left(12);
    x[a] = x[a].wrapping_add(x[b]);
    x[d] = (x[d] ^ x[a]).rotate_left(8);
    x[c] = x[c].wrapping_add(x[d]);
    x[b] = (x[b] ^ x[c]).rotate_left(7);
}

impl Generator for Core {
    type Output = [u32; BLOCK_WORDS];

    fn generate(&mut self, output: &mut [u32; BLOCK_WORDS]) {
        let mut x = self.input;
        for _ in 0..DOUBLE_ROUNDS {
            // Columns, then diagonals.
            quarter(&mut x, 0, 4, 8, 12);
            quarter(&mut x, 1, 5, 9, 13);
            quarter(&mut x, 2, 6, 10, 14);
            quarter(&mut x, 3, 7, 11, 15);
            quarter(&mut x, 0, 5, 10, 15);
            quarter(&mut x, 1, 6, 11, 12);
            quarter(&mut x, 2, 7, 8, 13);
            quarter(&mut x, 3, 4, 9, 14);
        }
        for (out, (mixed, input)) in output.iter_mut().zip(x.iter().zip(&self.input)) {
            *out = mixed.wrapping_add(*input);
        }
        // The counter wraps after 2^64 blocks, as `rand_chacha`'s does.
        self.set_block_pos(self.block_pos().wrapping_add(1));
    }
}

/// A ChaCha8 generator drawing the same numbers as `rand_chacha::ChaCha8Rng`.
pub struct ChaCha8(BlockRng<Core>);

impl ChaCha8 {
    /// Picks the stream (the nonce); called before the first draw, so no
    /// buffered word belongs to another stream.
    pub fn set_stream(&mut self, stream: u64) {
        assert_eq!(self.0.word_offset(), 0, "the stream is chosen before the first draw");
        self.0.core.input[14] = stream as u32;
        self.0.core.input[15] = (stream >> 32) as u32;
    }
}

impl SeedableRng for ChaCha8 {
    type Seed = [u8; 32];

    fn from_seed(seed: [u8; 32]) -> ChaCha8 {
        let mut input = [0u32; BLOCK_WORDS];
        input[..4].copy_from_slice(&SIGMA);
        for (word, bytes) in input[4..12].iter_mut().zip(seed.chunks_exact(4)) {
            *word = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        }
        ChaCha8(BlockRng::new(Core { input }))
    }
}

impl TryRng for ChaCha8 {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(self.0.next_word())
    }

    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(self.0.next_u64_from_u32())
    }

    fn try_fill_bytes(&mut self, bytes: &mut [u8]) -> Result<(), Infallible> {
        self.0.fill_bytes(bytes);
        Ok(())
    }
}

#[cfg(test)]
mod tests;
