//! A minimal serde_with: `#[serde_as]` plus the adapters Codebattle's rust
//! checker names.  `#[serde_as(as = "T")]` on a field becomes
//! `#[serde(serialize_with = "::serde_with::As::<T>::serialize")]`, and
//! `T: SerializeAs<FieldType>` does the work, as in the real crate.

use serde::Serializer;
use std::marker::PhantomData;
use std::time::Duration;

pub use serde_with_macros::serde_as;

/// Serializes a value of type `U` the way the adapter `Self` says.
pub trait SerializeAs<U: ?Sized> {
    fn serialize_as<S: Serializer>(source: &U, serializer: S) -> Result<S::Ok, S::Error>;
}

/// The bridge the attribute expands to.
pub struct As<T: ?Sized>(PhantomData<T>);

impl<T: ?Sized> As<T> {
    pub fn serialize<S: Serializer, U: ?Sized>(value: &U, serializer: S) -> Result<S::Ok, S::Error>
    where
        T: SerializeAs<U>,
    {
        T::serialize_as(value, serializer)
    }
}

/// Adapter marker for a format: only `String` is provided here.
pub struct DurationSecondsWithFrac<FORMAT = f64>(PhantomData<FORMAT>);

/// A Duration as seconds with a fraction, written as a decimal string
/// ("0.00000012"): Rust's f64 Display never uses an exponent.
impl SerializeAs<Duration> for DurationSecondsWithFrac<String> {
    fn serialize_as<S: Serializer>(source: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&source.as_secs_f64().to_string())
    }
}

/// The same as a JSON number.
impl SerializeAs<Duration> for DurationSecondsWithFrac<f64> {
    fn serialize_as<S: Serializer>(source: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f64(source.as_secs_f64())
    }
}
