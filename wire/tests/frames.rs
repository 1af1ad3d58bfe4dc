//! Shards by hand count, and gradient frames: a round trip, and every malformed message refused
//! with its reason before a value is read.

use lab_wire::frame::{FrameError, GradientFrame, HEADER};
use lab_wire::shards::{assign, shard};

#[test]
fn a_batch_is_split_in_rank_order_into_shards_a_row_apart() {
    // 10 rows over 4 workers: 3, 3, 2, 2 (the first 10 mod 4 = 2 a row larger).
    let shards: Vec<_> = (0..4).map(|i| shard(10, 4, i)).collect();
    assert_eq!(shards, [0..3, 3..6, 6..8, 8..10]);
    // Fewer rows than workers: the last ones get none.
    assert_eq!(
        (0..3).map(|i| shard(2, 3, i)).collect::<Vec<_>>(),
        [0..1, 1..2, 2..2]
    );
    assert_eq!(shard(64, 1, 0), 0..64);
    // Rank 5 of ranks 0..8 left: the seven that remain split the whole batch again.
    let live: Vec<u16> = (0..8).filter(|r| *r != 5).collect();
    let split = assign(64, &live);
    assert_eq!(split.len(), 7);
    assert_eq!(split[5], (6, 46..55));
    assert_eq!(
        split.iter().map(|(_, r)| r.len()).sum::<usize>(),
        64,
        "every row once"
    );
    assert!(
        split.windows(2).all(|w| w[0].1.end == w[1].1.start),
        "contiguous, in rank order"
    );
}

fn frame() -> GradientFrame {
    GradientFrame {
        run: 7,
        step: 3,
        rank: 2,
        rows: 16,
        loss_sum: 11.5,
        values: vec![1.0, -2.5, 0.0, f32::MIN_POSITIVE],
    }
}

#[test]
fn a_frame_comes_back_as_it_was_sent() {
    let bytes = frame().encode();
    assert_eq!(bytes.len(), HEADER + 4 * 4);
    assert_eq!(&bytes[..4], b"LTG1");
    assert_eq!(GradientFrame::decode(&bytes, 4), Ok(frame()));
}

#[test]
fn a_message_that_is_not_the_runs_frame_is_refused_with_why() {
    let bytes = frame().encode();
    assert_eq!(GradientFrame::decode(&bytes[..10], 4), Err(FrameError::Short(10)));
    let mut other = bytes.clone();
    other[0] = b'X';
    assert_eq!(GradientFrame::decode(&other, 4), Err(FrameError::NotAFrame));
    assert_eq!(
        GradientFrame::decode(&bytes, 5),
        Err(FrameError::WrongCount { got: 4, expected: 5 })
    );
    assert_eq!(
        GradientFrame::decode(&bytes[..bytes.len() - 1], 4),
        Err(FrameError::WrongLength {
            got: 43,
            count: 4,
            expected: 44
        })
    );
    let mut longer = bytes.clone();
    longer.extend_from_slice(&[0; 4]);
    assert!(matches!(
        GradientFrame::decode(&longer, 4),
        Err(FrameError::WrongLength { .. })
    ));
    // A count that claims 16 GiB is refused by the run's size before any length arithmetic
    // could wrap (the header's count is bytes 24..28).
    let mut huge = bytes;
    huge[24..28].copy_from_slice(&u32::MAX.to_le_bytes());
    assert_eq!(
        GradientFrame::decode(&huge, u32::MAX),
        Err(FrameError::WrongLength {
            got: 44,
            count: u32::MAX,
            expected: 28 + 4 * u64::from(u32::MAX)
        })
    );
    assert!(FrameError::WrongCount { got: 4, expected: 5 }
        .to_string()
        .contains("4 gradient values for a model of 5"));
}
