//! Fuzzing the protocol's decoders with hostile bytes: the frame decoder (`Decoder`), the board's
//! messages (`Message::decode`) and the host's requests (`Request::decode`). Arbitrary bytes, and valid
//! frames with bytes flipped, inserted, deleted or duplicated. Never a panic; the decoder never holds
//! more than one frame's bytes, delivers only frames that were on the wire, and always comes back to
//! frame boundaries: after any garbage, a frame sent often enough is delivered.

#[path = "../../../golden/tests/support/fuzz.rs"]
mod fuzz;

use aqm_protocol::*;
use fuzz::*;
use proptest::prelude::*;

const INSERTS: &[&[u8]] = &[&[SYNC], &[SYNC, 0xFF], &[SYNC, 0], &[0], &[0xFF]];

/// A frame the board may send: every message kind with arbitrary fields, or any command and payload.
fn board_frame() -> impl Strategy<Value = Frame> {
    let payload = |n: usize| prop::collection::vec(any::<u8>(), n);
    prop_oneof![
        payload(16).prop_map(|p| Frame::new(cmd::HELLO | cmd::RESPONSE, p)),
        payload(5).prop_map(|p| Frame::new(cmd::READ | cmd::RESPONSE, p)),
        payload(6).prop_map(|p| Frame::new(cmd::WRITE | cmd::RESPONSE, p)),
        Just(Frame::new(cmd::START | cmd::RESPONSE, vec![])),
        payload(1).prop_map(|p| Frame::new(cmd::INJECT | cmd::RESPONSE, p)),
        payload(8).prop_map(|p| Frame::new(cmd::VERDICT, p)),
        payload(10).prop_map(|p| Frame::new(cmd::DEPART, p)),
        payload(2).prop_map(|p| Frame::new(cmd::ERROR, p)),
        (any::<u8>(), prop::collection::vec(any::<u8>(), 0..40))
            .prop_map(|(c, p)| Frame::new(c, p)),
    ]
}

fn board_stream() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(board_frame(), 0..8)
        .prop_map(|fs| fs.iter().flat_map(Frame::encode).collect())
}

/// Whether `needle` occurs in `hay`.
fn contains(hay: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || hay.windows(needle.len()).any(|w| w == needle)
}

/// A request the board decodes has a frame that decodes to it (the board reads an ECN byte's low two
/// bits only, so the frame itself may differ).
fn check_request(f: &Frame) -> Result<(), TestCaseError> {
    if let Some(r) = Request::decode(f) {
        let again = r.frame().ok();
        prop_assert_eq!(again.as_ref().and_then(Request::decode), Some(r));
    }
    Ok(())
}

/// Feeds `bytes`; checks that every delivered frame was on the wire and decodes without a panic.
fn feed(d: &mut Decoder, bytes: &[u8]) -> Result<Vec<Decoded>, TestCaseError> {
    let mut out = vec![];
    for &b in bytes {
        if let Some(x) = d.push(b) {
            if let Decoded::Frame(f) = &x {
                prop_assert!(f.payload.len() <= 255);
                prop_assert!(contains(bytes, &f.encode()), "{f:?} was not on the wire");
                let _ = Message::decode(f);
                check_request(f)?;
            }
            out.push(x);
        }
        prop_assert!(d.pending() <= 4 + 255, "{} bytes pending", d.pending());
    }
    Ok(out)
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        feed(&mut Decoder::new(), &bytes)?;
    }

    #[test]
    fn board_streams_mutated(base in board_stream(), edits in byte_edits(8, INSERTS)) {
        feed(&mut Decoder::new(), &apply_bytes(&base, &edits))?;
    }

    #[test]
    fn a_valid_stream_decodes_to_its_frames(frames in prop::collection::vec(board_frame(), 0..8)) {
        let bytes: Vec<u8> = frames.iter().flat_map(Frame::encode).collect();
        let got = feed(&mut Decoder::new(), &bytes)?;
        let want: Vec<Decoded> = frames.into_iter().map(Decoded::Frame).collect();
        prop_assert_eq!(got, want);
    }

    /// After garbage, a frame sent again and again is delivered (an unfinished false frame takes at most
    /// 258 bytes; a false sync inside a frame can take a few more copies).
    #[test]
    fn garbage_then_a_frame_resynchronises(
        garbage in prop_oneof![
            prop::collection::vec(any::<u8>(), 0..300),
            board_stream().prop_flat_map(|b| (Just(b), byte_edits(4, INSERTS)))
                .prop_map(|(b, e)| apply_bytes(&b, &e)),
        ],
        f in board_frame(),
    ) {
        let wire = f.encode();
        // Enough copies to cover one 258-byte false frame and then some.
        let copies = 2 * 259 / wire.len() + 8;
        let mut bytes = garbage.clone();
        for _ in 0..copies {
            bytes.extend_from_slice(&wire);
        }
        let got = feed(&mut Decoder::new(), &bytes)?;
        let delivered = got.contains(&Decoded::Frame(f.clone()));
        prop_assert!(delivered, "{f:?} never delivered after {} bytes of garbage", garbage.len());
    }

    #[test]
    fn messages_and_requests_decode_any_frame(
        c in any::<u8>(),
        p in prop::collection::vec(any::<u8>(), 0..=255),
    ) {
        let f = Frame::new(c, p);
        let _ = Message::decode(&f);
        check_request(&f)?;
    }
}

/// Found by `garbage_then_a_frame_resynchronises`: two bytes of garbage before a DEPART frame whose
/// payload ends in the sync byte, sent again and again. The false frames that started at the payload's
/// sync always ended inside the next copy, so the decoder never saw a real frame's sync: it stayed out
/// of step for good. Rescanning a bad frame's bytes finds the next copy.
#[test]
fn a_stream_out_of_step_finds_its_frames_again() {
    let f = Frame::new(cmd::DEPART, vec![4, 12, 11, 0, 14, 30, 75, 5, 0, SYNC]);
    let mut bytes = vec![SYNC, 0x00];
    for _ in 0..10 {
        bytes.extend(f.encode());
    }
    let mut d = Decoder::new();
    let got: Vec<Decoded> = bytes.iter().filter_map(|&b| d.push(b)).collect();
    let frames = got
        .iter()
        .filter(|x| **x == Decoded::Frame(f.clone()))
        .count();
    assert!(frames >= 8, "{frames} of 10 copies: {got:?}");
}

/// A real frame inside a false one comes out after the false one's bad CRC (from `pop`: the byte that
/// ended the false frame also ended it).
#[test]
fn a_frame_inside_a_false_frame_is_delivered() {
    let f = Frame::new(cmd::START | cmd::RESPONSE, vec![]);
    let mut bytes = vec![SYNC, 5, 0x42];
    bytes.extend(f.encode());
    bytes.push(0x00);
    bytes.push(0x00);
    let mut d = Decoder::new();
    let got: Vec<Decoded> = bytes.iter().filter_map(|&b| d.push(b)).collect();
    assert_eq!(got, vec![Decoded::BadCrc { cmd: 0x42 }]);
    assert_eq!(d.pop(), Some(Decoded::Frame(f)));
    assert_eq!(d.pop(), None);
}
