//! qinfer's C ABI over Hugging Face `tokenizers` (declared for C++ in
//! ../src/tokenizer_ffi.h, which states the contract of every function).
//!
//! Ownership: every object this library hands out (a tokenizer, an encoding,
//! an error string, an id list) is allocated here and freed only by its
//! matching `*_free` function; buffers the caller passes in are only written.
//! No panic crosses the boundary: every entry point runs inside
//! `std::panic::catch_unwind` and turns a panic into `STATUS_INTERNAL` (or a
//! neutral value for the accessors that cannot fail).

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::Arc;

use tokenizers::utils::truncation::{
    truncate_encodings, TruncationDirection, TruncationParams, TruncationStrategy,
};
use tokenizers::{Encoding, PostProcessor, Tokenizer};

pub const STATUS_OK: i32 = 0;
pub const STATUS_INVALID_ARGUMENT: i32 = 1;
pub const STATUS_NOT_FOUND: i32 = 2;
pub const STATUS_INTERNAL: i32 = 3;

type Failure = (i32, String);

fn invalid(message: String) -> Failure {
    (STATUS_INVALID_ARGUMENT, message)
}

fn internal(message: String) -> Failure {
    (STATUS_INTERNAL, message)
}

/// A UTF-8 message owned by this library; free with `qinfer_tok_string_free`.
#[repr(C)]
pub struct QinferTokString {
    pub data: *mut u8,
    pub len: usize,
}

/// Token id sequences owned by this library; free with
/// `qinfer_tok_id_lists_free`. Sequence i is `ids[ends[i-1] .. ends[i]]`
/// (`ends[-1]` = 0); `type_ids`, `starts`, `stops` and `special` hold, for
/// each of `ids`, its type id, its span in the text (character offsets
/// [start, stop)) and whether it is a special token.
#[repr(C)]
pub struct QinferTokIdLists {
    pub ids: *mut u32,
    pub type_ids: *mut u32,
    pub starts: *mut u32,
    pub stops: *mut u32,
    pub special: *mut u8,
    pub ids_len: usize,
    pub ends: *mut usize,
    pub count: usize,
}

struct Loaded {
    tokenizer: Tokenizer,
    // The same without its post-processor: what encodes the raw encodings.
    // Encoding with the full tokenizer and add_special_tokens = false would
    // still run the post-processor (RoBERTa's trims the offsets), and a
    // second run when the special tokens are added would trim them again.
    raw_tokenizer: Tokenizer,
    // Special tokens the post-processor adds to one sequence, and to a pair.
    added_tokens: usize,
    added_tokens_pair: usize,
}

/// The C++ side's `Tokenizer::Handle`. Encodings share the loaded tokenizer,
/// so an encoding stays usable after its tokenizer handle is freed.
pub struct QinferTokenizer {
    loaded: Arc<Loaded>,
}

/// The C++ side's `Encoding::Handle`.
pub struct QinferEncoding {
    loaded: Arc<Loaded>,
    // encode(text, add_special_tokens = false): the input of every
    // truncation, which the library performs before post-processing.
    raw: Encoding,
    // The same of the pair's second text, for a pair.
    raw_pair: Option<Encoding>,
    // The whole sequence, special tokens included.
    whole: Encoding,
    special_only: bool,
}

/// Hands `text` to the caller as a QinferTokString in `*out` (an error
/// message, or a token's string).
fn write_string(out: *mut QinferTokString, text: String) {
    if out.is_null() {
        return;
    }
    let boxed = text.into_bytes().into_boxed_slice();
    let len = boxed.len();
    let data = Box::into_raw(boxed) as *mut u8;
    // SAFETY: the caller passed a writable QinferTokString (checked non-null).
    unsafe { out.write(QinferTokString { data, len }) };
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic payload".to_string()
    }
}

/// Runs `f`, turning its failure or panic into a status code and a message in
/// `*error`.
fn guarded<F>(error: *mut QinferTokString, f: F) -> i32
where
    F: FnOnce() -> Result<(), Failure>,
{
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => STATUS_OK,
        Ok(Err((code, message))) => {
            write_string(error, message);
            code
        }
        Err(payload) => {
            write_string(
                error,
                format!("tokenizers panicked: {}", panic_message(payload.as_ref())),
            );
            STATUS_INTERNAL
        }
    }
}

/// Runs an accessor that cannot fail; a panic yields `fallback`.
fn value_or<T, F: FnOnce() -> T>(fallback: T, f: F) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(fallback)
}

/// # Safety
/// `data` points to `len` readable bytes, or `len` is 0.
unsafe fn bytes<'a>(data: *const u8, len: usize) -> &'a [u8] {
    if len == 0 || data.is_null() {
        &[]
    } else {
        std::slice::from_raw_parts(data, len)
    }
}

fn load(path: &[u8]) -> Result<Loaded, Failure> {
    let path = Path::new(OsStr::from_bytes(path));
    let json = std::fs::read(path)
        .map_err(|e| (STATUS_NOT_FOUND, format!("cannot read {}: {}", path.display(), e)))?;
    let mut tokenizer = Tokenizer::from_bytes(&json)
        .map_err(|e| invalid(format!("{}: not a tokenizer.json: {}", path.display(), e)))?;
    // qinfer pads batches itself and truncates only where its admission
    // policy says (through the explicit calls below); the settings stored in
    // the file (all-MiniLM-L6-v2's pads every sequence to 128) must not apply.
    tokenizer.with_padding(None);
    tokenizer
        .with_truncation(None)
        .map_err(|e| internal(format!("{}: cannot disable truncation: {}", path.display(), e)))?;
    let added = |pair: bool| {
        tokenizer
            .get_post_processor()
            .map(|p| p.added_tokens(pair))
            .unwrap_or(0)
    };
    let (added_tokens, added_tokens_pair) = (added(false), added(true));
    let mut raw_tokenizer = tokenizer.clone();
    raw_tokenizer.with_post_processor(None::<tokenizers::PostProcessorWrapper>);
    Ok(Loaded {
        tokenizer,
        raw_tokenizer,
        added_tokens,
        added_tokens_pair,
    })
}

fn utf8<'a>(text: &'a [u8], what: &str) -> Result<&'a str, Failure> {
    std::str::from_utf8(text).map_err(|e| {
        invalid(format!(
            "{} is not valid UTF-8 (invalid byte at offset {})",
            what,
            e.valid_up_to()
        ))
    })
}

/// Turns byte offsets into `text` into offsets in characters (code points),
/// as Python's tokenizers gives them: what the library's
/// `encode_char_offsets` does token by token (`BytesToCharOffsetConverter`),
/// without the hash map of every byte it builds for each text. An ASCII
/// text's offsets are already in characters.
fn to_char_offsets(text: &str, offsets: &mut [(usize, usize)]) {
    if text.is_ascii() {
        return;
    }
    // char_of[b]: the index of the character that byte b belongs to.
    let mut char_of = Vec::with_capacity(text.len());
    for (i, c) in text.chars().enumerate() {
        char_of.extend(std::iter::repeat(i).take(c.len_utf8()));
    }
    for offset in offsets.iter_mut() {
        let (start, stop) = *offset;
        // The library's rules: a start outside the text keeps the byte
        // offsets; a stop outside the text is one past the character of
        // the byte before it (or start + 2 when that byte is outside too).
        if let Some(&first) = char_of.get(start) {
            let last = match char_of.get(stop) {
                Some(&c) => c,
                None => stop.checked_sub(1).and_then(|b| char_of.get(b)).copied().unwrap_or(first + 1) + 1,
            };
            *offset = (first, last);
        }
    }
}

/// encode(text, pair) with the special tokens, kept with its raw parts.
fn encode(loaded: &Arc<Loaded>, text: &[u8], pair: Option<&[u8]>) -> Result<QinferEncoding, Failure> {
    let tokenizer = &loaded.tokenizer;
    let raw_of = |bytes: &[u8], what: &str| -> Result<Encoding, Failure> {
        let text = utf8(bytes, what)?;
        let mut raw = loaded
            .raw_tokenizer
            .encode(text, false)
            .map_err(|e| internal(format!("tokenizers failed to encode: {}", e)))?;
        to_char_offsets(text, raw.get_offsets_mut());
        Ok(raw)
    };
    let raw = raw_of(text, "text")?;
    let raw_pair = match pair {
        Some(p) => Some(raw_of(p, "text_pair")?),
        None => None,
    };
    let whole = tokenizer
        .post_process(raw.clone(), raw_pair.clone(), true)
        .map_err(|e| internal(format!("tokenizers failed to post-process: {}", e)))?;
    let added = tokenizer.get_added_vocabulary();
    let special_only = whole.get_tokens().iter().all(|t| added.is_special_token(t));
    Ok(QinferEncoding {
        loaded: Arc::clone(loaded),
        raw,
        raw_pair,
        whole,
        special_only,
    })
}

/// What encode(text, true) gives with truncation to `max_length` (special
/// tokens included) and `stride`: the library's own truncate-then-post-process
/// (TokenizerImpl::post_process with TruncationParams set), on the raw
/// encoding kept from encode().
fn truncate(enc: &QinferEncoding, max_length: usize, stride: usize) -> Result<Encoding, Failure> {
    let pair = enc.raw_pair.is_some();
    if pair && stride > 0 {
        return Err(invalid(
            "a pair has no overflow windows here: truncate it instead".to_string(),
        ));
    }
    let added = if pair {
        enc.loaded.added_tokens_pair
    } else {
        enc.loaded.added_tokens
    };
    if max_length <= added {
        return Err(invalid(format!(
            "max_length {} leaves no room for content: the post-processor adds {} special tokens",
            max_length, added
        )));
    }
    let room = max_length - added;
    if stride >= room {
        return Err(invalid(format!(
            "stride {} must be below the content room {} (max_length {} - {} special tokens)",
            stride, room, max_length, added
        )));
    }
    let params = TruncationParams {
        direction: TruncationDirection::Right,
        max_length: room,
        strategy: TruncationStrategy::LongestFirst,
        stride,
    };
    let (truncated, truncated_pair) =
        truncate_encodings(enc.raw.clone(), enc.raw_pair.clone(), &params)
            .map_err(|e| internal(format!("tokenizers failed to truncate: {}", e)))?;
    enc.loaded
        .tokenizer
        .post_process(truncated, truncated_pair, true)
        .map_err(|e| internal(format!("tokenizers failed to post-process: {}", e)))
}

fn leak<T>(v: Vec<T>) -> *mut T {
    Box::into_raw(v.into_boxed_slice()) as *mut T
}

fn id_lists<'a, I: Iterator<Item = &'a Encoding>>(sequences: I) -> QinferTokIdLists {
    let (mut ids, mut type_ids, mut ends) = (Vec::new(), Vec::new(), Vec::new());
    let (mut starts, mut stops, mut special) = (Vec::new(), Vec::new(), Vec::new());
    for sequence in sequences {
        ids.extend_from_slice(sequence.get_ids());
        type_ids.extend_from_slice(sequence.get_type_ids());
        for &(start, stop) in sequence.get_offsets() {
            starts.push(start as u32);
            stops.push(stop as u32);
        }
        special.extend(sequence.get_special_tokens_mask().iter().map(|&m| m as u8));
        ends.push(ids.len());
    }
    let (ids_len, count) = (ids.len(), ends.len());
    QinferTokIdLists {
        ids: leak(ids),
        type_ids: leak(type_ids),
        starts: leak(starts),
        stops: leak(stops),
        special: leak(special),
        ids_len,
        ends: leak(ends),
        count,
    }
}

// ------------------------------------------------------------- tokenizer

#[no_mangle]
pub unsafe extern "C" fn qinfer_tok_load(
    path: *const u8,
    path_len: usize,
    out: *mut *mut QinferTokenizer,
    error: *mut QinferTokString,
) -> i32 {
    guarded(error, || {
        if out.is_null() {
            return Err(invalid("qinfer_tok_load: out is null".to_string()));
        }
        let loaded = load(bytes(path, path_len))?;
        let handle = Box::new(QinferTokenizer { loaded: Arc::new(loaded) });
        out.write(Box::into_raw(handle));
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn qinfer_tok_free(tokenizer: *mut QinferTokenizer) {
    if !tokenizer.is_null() {
        value_or((), || drop(Box::from_raw(tokenizer)));
    }
}

#[no_mangle]
pub unsafe extern "C" fn qinfer_tok_vocab_size(tokenizer: *const QinferTokenizer) -> usize {
    match tokenizer.as_ref() {
        Some(t) => value_or(0, || t.loaded.tokenizer.get_vocab_size(true)),
        None => 0,
    }
}

#[no_mangle]
pub unsafe extern "C" fn qinfer_tok_added_tokens(tokenizer: *const QinferTokenizer) -> usize {
    tokenizer.as_ref().map_or(0, |t| t.loaded.added_tokens)
}

#[no_mangle]
pub unsafe extern "C" fn qinfer_tok_added_tokens_pair(tokenizer: *const QinferTokenizer) -> usize {
    tokenizer.as_ref().map_or(0, |t| t.loaded.added_tokens_pair)
}

#[no_mangle]
pub unsafe extern "C" fn qinfer_tok_encode(
    tokenizer: *const QinferTokenizer,
    text: *const u8,
    text_len: usize,
    out: *mut *mut QinferEncoding,
    error: *mut QinferTokString,
) -> i32 {
    qinfer_tok_encode_pair(tokenizer, text, text_len, std::ptr::null(), 0, false, out, error)
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn qinfer_tok_encode_pair(
    tokenizer: *const QinferTokenizer,
    text: *const u8,
    text_len: usize,
    pair: *const u8,
    pair_len: usize,
    is_pair: bool,
    out: *mut *mut QinferEncoding,
    error: *mut QinferTokString,
) -> i32 {
    guarded(error, || {
        let tokenizer = tokenizer
            .as_ref()
            .ok_or_else(|| invalid("qinfer_tok_encode: tokenizer is null".to_string()))?;
        if out.is_null() {
            return Err(invalid("qinfer_tok_encode: out is null".to_string()));
        }
        let pair = if is_pair {
            Some(bytes(pair, pair_len))
        } else {
            None
        };
        let encoding = encode(&tokenizer.loaded, bytes(text, text_len), pair)?;
        out.write(Box::into_raw(Box::new(encoding)));
        Ok(())
    })
}

// -------------------------------------------------------------- encoding

#[no_mangle]
pub unsafe extern "C" fn qinfer_tok_encoding_free(encoding: *mut QinferEncoding) {
    if !encoding.is_null() {
        value_or((), || drop(Box::from_raw(encoding)));
    }
}

#[no_mangle]
pub unsafe extern "C" fn qinfer_tok_encoding_len(encoding: *const QinferEncoding) -> usize {
    encoding.as_ref().map_or(0, |e| e.whole.len())
}

#[no_mangle]
pub unsafe extern "C" fn qinfer_tok_encoding_special_only(encoding: *const QinferEncoding) -> bool {
    encoding.as_ref().is_some_and(|e| e.special_only)
}

#[no_mangle]
pub unsafe extern "C" fn qinfer_tok_encoding_ids(encoding: *const QinferEncoding, out: *mut u32) {
    if let Some(e) = encoding.as_ref() {
        if !out.is_null() {
            value_or((), || {
                let ids = e.whole.get_ids();
                std::ptr::copy_nonoverlapping(ids.as_ptr(), out, ids.len());
            });
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn qinfer_tok_encoding_type_ids(encoding: *const QinferEncoding, out: *mut u32) {
    if let Some(e) = encoding.as_ref() {
        if !out.is_null() {
            value_or((), || {
                let type_ids = e.whole.get_type_ids();
                std::ptr::copy_nonoverlapping(type_ids.as_ptr(), out, type_ids.len());
            });
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn qinfer_tok_encoding_tokens_bytes(encoding: *const QinferEncoding) -> usize {
    match encoding.as_ref() {
        Some(e) => value_or(0, || e.whole.get_tokens().iter().map(String::len).sum()),
        None => 0,
    }
}

#[no_mangle]
pub unsafe extern "C" fn qinfer_tok_encoding_tokens(
    encoding: *const QinferEncoding,
    out_bytes: *mut u8,
    out_lens: *mut usize,
) {
    let Some(e) = encoding.as_ref() else { return };
    if out_lens.is_null() {
        return;
    }
    value_or((), || {
        let mut at = 0;
        for (i, token) in e.whole.get_tokens().iter().enumerate() {
            if !token.is_empty() {
                std::ptr::copy_nonoverlapping(token.as_ptr(), out_bytes.add(at), token.len());
            }
            out_lens.add(i).write(token.len());
            at += token.len();
        }
    });
}

/// The entry points that give id lists of an encoding: `lists` makes them
/// from the encoding, written to `*out`; `what` names the call in errors.
///
/// # Safety
/// `encoding` is null or a live encoding; `out` is null or writable.
unsafe fn write_lists<F>(
    what: &str,
    encoding: *const QinferEncoding,
    out: *mut QinferTokIdLists,
    error: *mut QinferTokString,
    lists: F,
) -> i32
where
    F: FnOnce(&QinferEncoding) -> Result<QinferTokIdLists, Failure>,
{
    guarded(error, || {
        let e = encoding
            .as_ref()
            .ok_or_else(|| invalid(format!("{}: encoding is null", what)))?;
        if out.is_null() {
            return Err(invalid(format!("{}: out is null", what)));
        }
        out.write(lists(e)?);
        Ok(())
    })
}

/// The whole sequence as one list (ids, type ids, spans, special flags).
#[no_mangle]
pub unsafe extern "C" fn qinfer_tok_encoding_whole(
    encoding: *const QinferEncoding,
    out: *mut QinferTokIdLists,
    error: *mut QinferTokString,
) -> i32 {
    write_lists("qinfer_tok_encoding_whole", encoding, out, error, |e| {
        Ok(id_lists(std::iter::once(&e.whole)))
    })
}

/// The vocabulary's string for `id` (what convert_ids_to_tokens gives) into
/// `out`; false (and nothing written) for an id the tokenizer does not have.
#[no_mangle]
pub unsafe extern "C" fn qinfer_tok_id_to_token(
    tokenizer: *const QinferTokenizer,
    id: u32,
    out: *mut QinferTokString,
) -> bool {
    let Some(t) = tokenizer.as_ref() else { return false };
    if out.is_null() {
        return false;
    }
    value_or(false, || match t.loaded.tokenizer.id_to_token(id) {
        Some(token) => {
            write_string(out, token);
            true
        }
        None => false,
    })
}

#[no_mangle]
pub unsafe extern "C" fn qinfer_tok_encoding_truncated(
    encoding: *const QinferEncoding,
    max_length: usize,
    out: *mut QinferTokIdLists,
    error: *mut QinferTokString,
) -> i32 {
    write_lists("qinfer_tok_encoding_truncated", encoding, out, error, |e| {
        let truncated = truncate(e, max_length, 0)?;
        Ok(id_lists(std::iter::once(&truncated)))
    })
}

#[no_mangle]
pub unsafe extern "C" fn qinfer_tok_encoding_windows(
    encoding: *const QinferEncoding,
    max_length: usize,
    stride: usize,
    out: *mut QinferTokIdLists,
    error: *mut QinferTokString,
) -> i32 {
    write_lists("qinfer_tok_encoding_windows", encoding, out, error, |e| {
        let first = truncate(e, max_length, stride)?;
        Ok(id_lists(std::iter::once(&first).chain(first.get_overflowing().iter())))
    })
}

// ------------------------------------------------------- owned results

#[no_mangle]
pub unsafe extern "C" fn qinfer_tok_string_free(s: *mut QinferTokString) {
    let Some(s) = s.as_mut() else { return };
    if !s.data.is_null() {
        let data = std::ptr::slice_from_raw_parts_mut(s.data, s.len);
        value_or((), || drop(Box::from_raw(data)));
    }
    s.data = std::ptr::null_mut();
    s.len = 0;
}

#[no_mangle]
pub unsafe extern "C" fn qinfer_tok_id_lists_free(lists: *mut QinferTokIdLists) {
    let Some(l) = lists.as_mut() else { return };
    value_or((), || {
        if !l.ids.is_null() {
            drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(l.ids, l.ids_len)));
        }
        for p in [l.type_ids, l.starts, l.stops] {
            if !p.is_null() {
                drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(p, l.ids_len)));
            }
        }
        if !l.special.is_null() {
            drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                l.special, l.ids_len,
            )));
        }
        if !l.ends.is_null() {
            drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(l.ends, l.count)));
        }
    });
    *l = QinferTokIdLists {
        ids: std::ptr::null_mut(),
        type_ids: std::ptr::null_mut(),
        starts: std::ptr::null_mut(),
        stops: std::ptr::null_mut(),
        special: std::ptr::null_mut(),
        ids_len: 0,
        ends: std::ptr::null_mut(),
        count: 0,
    };
}

// Every allocation of this library (and of `tokenizers` in it) goes to
// mimalloc: see Cargo.toml. Whatever this library hands out is freed by its
// own `*_free` functions, so C++'s allocator never sees these blocks.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
