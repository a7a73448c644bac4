//! How a state is written (feature `serde`): JSON in an envelope with a format number, so that a
//! store written by one version of crawlgate is read by the next, or refused with a clear error.
//! JSON because states are small (bodies are stored apart) and a store can then be inspected
//! with `redis-cli GET` or a dump, which matters more here than a few hundred bytes.

use crate::policy::OriginState;
use crate::store::TdmRecord;

/// The format written today. A reader refuses newer formats rather than misread them.
pub const FORMAT: u32 = 1;

#[derive(serde::Serialize)]
struct EnvelopeRef<'a> {
    format: u32,
    state: &'a OriginState,
}

#[derive(serde::Deserialize)]
struct Envelope {
    format: u32,
    state: serde_json::Value,
}

/// The stored form of `state`.
pub fn encode(state: &OriginState) -> Vec<u8> {
    let envelope = EnvelopeRef {
        format: FORMAT,
        state,
    };
    // Serialising plain structs with string keys into memory cannot fail.
    serde_json::to_vec(&envelope).unwrap_or_default()
}

/// Reads a stored state; the error says what is wrong with it.
pub fn decode(bytes: &[u8]) -> Result<OriginState, String> {
    let envelope: Envelope = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    if envelope.format != FORMAT {
        return Err(format!(
            "format {} (this crawlgate reads format {FORMAT})",
            envelope.format
        ));
    }
    serde_json::from_value(envelope.state).map_err(|e| e.to_string())
}

/// The format of TDMRep records ([`TdmRecord`]) written today: a record type of its own, with
/// its own number, apart from the states'.
pub const TDM_FORMAT: u32 = 1;

#[derive(serde::Serialize)]
struct TdmEnvelopeRef<'a> {
    tdm_format: u32,
    state: &'a OriginState,
    body: Option<&'a [u8]>,
}

#[derive(serde::Deserialize)]
struct TdmEnvelope {
    tdm_format: u32,
    state: serde_json::Value,
    body: Option<Vec<u8>>,
}

/// The stored form of a TDMRep record.
pub fn encode_tdm(record: &TdmRecord) -> Vec<u8> {
    let envelope = TdmEnvelopeRef {
        tdm_format: TDM_FORMAT,
        state: &record.state,
        body: record.body.as_deref(),
    };
    serde_json::to_vec(&envelope).unwrap_or_default()
}

/// Reads a stored TDMRep record; the error says what is wrong with it.
pub fn decode_tdm(bytes: &[u8]) -> Result<TdmRecord, String> {
    let envelope: TdmEnvelope = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    if envelope.tdm_format != TDM_FORMAT {
        return Err(format!(
            "TDMRep record format {} (this crawlgate reads format {TDM_FORMAT})",
            envelope.tdm_format
        ));
    }
    let state = serde_json::from_value(envelope.state).map_err(|e| e.to_string())?;
    Ok(TdmRecord {
        state,
        body: envelope.body,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{Fetch, FetchOutcome, Unreachable};
    use crate::Robots;
    use std::sync::Arc;
    use std::time::{Duration, SystemTime};

    #[test]
    fn round_trip_and_refusals() {
        let t = SystemTime::UNIX_EPOCH + Duration::from_millis(1_800_000_000_123);
        let mut state = OriginState::new();
        let body: &[u8] = b"User-agent: *\nDisallow: /x\nFoo: bar\n";
        let mut ok = Fetch::new(
            "https://a.example/robots.txt",
            Some(200),
            FetchOutcome::Rules {
                body: body.into(),
                parsed: Arc::new(Robots::parse(body)),
            },
        );
        ok.etag = Some("\"v1\"".into());
        state.record(t, &ok);
        state.record(
            t + Duration::from_secs(60),
            &Fetch::new(
                "https://a.example/robots.txt",
                None,
                FetchOutcome::Unreachable(Unreachable::Dns("no such host".into())),
            ),
        );
        state.record_site_availability(t, true);
        let bytes = encode(&state);
        assert_eq!(decode(&bytes), Ok(state));
        assert!(decode(b"{").is_err());
        let future = String::from_utf8_lossy(&bytes).replacen("\"format\":1", "\"format\":9", 1);
        assert!(decode(future.as_bytes()).unwrap_err().contains("format 9"));
    }

    /// A state as the release before challenges, 402 and HTML marks wrote it: still read, to
    /// the same verdict; and the new outcomes round-trip.
    #[test]
    fn states_written_before_the_edge_outcomes_are_read() {
        use crate::policy::{Content, Payment, PolicyOptions, VerdictReason};
        let old = r#"{"format":1,"state":{"versions":[{"first_at":1800000000123,"last_at":1800000000123,"count":1,"status":200,"final_url":"https://a.example/robots.txt","redirects":0,"content":{"rules":{"digest":"f5942a43fcf045b80e83b72a079ddd4844d2106bccfaec3a4fa333d655d9f26b","size":36,"errors":1,"warnings":0,"etag":"\"v1\""}}},{"first_at":1800000060123,"last_at":1800000060123,"count":1,"status":null,"final_url":"https://a.example/robots.txt","redirects":0,"content":{"unreachable":{"kind":"dns","detail":"no such host"}}}],"good":{"at":1800000000123,"version":{"rules":{"digest":"f5942a43fcf045b80e83b72a079ddd4844d2106bccfaec3a4fa333d655d9f26b","size":36,"errors":1,"warnings":0,"etag":"\"v1\""}}},"failing_since":1800000060123,"absent_since":null,"next_due":1800000060123,"epoch":0,"recrawl_requested":null,"site":{"at":1800000000123,"up":true}}}"#;
        let state = decode(old.as_bytes()).expect("an old state reads");
        assert!(state.good_file().is_some_and(|f| !f.html));
        let t = SystemTime::UNIX_EPOCH + Duration::from_millis(1_800_000_060_123);
        let j = state.verdict_at(t, &PolicyOptions::default());
        assert!(matches!(j.reason, VerdictReason::Unreachable { .. }));
        // Written again, it is the same bytes: nothing new is added to an old state.
        assert_eq!(encode(&state), old.as_bytes());

        let mut state = state;
        let url = "https://a.example/robots.txt";
        let challenge = Unreachable::Challenge {
            status: 403,
            marker: "cf-mitigated: challenge".into(),
        };
        state.record(
            t,
            &Fetch::new(url, Some(403), FetchOutcome::Unreachable(challenge.clone())),
        );
        let payment = Payment::new([("crawler-price", "USD 0.01")]);
        state.record(
            t + Duration::from_secs(1),
            &Fetch::new(
                url,
                Some(402),
                FetchOutcome::PaymentRequired(payment.clone()),
            ),
        );
        let back = decode(&encode(&state)).expect("decode");
        assert_eq!(back, state);
        let contents: Vec<&Content> = back.history().map(|v| &v.content).collect();
        assert_eq!(contents[2], &Content::Unreachable(challenge));
        assert_eq!(contents[3], &Content::PaymentRequired(payment));
    }
}
