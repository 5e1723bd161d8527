//! A table's stream view type, as a value (`StreamView`, in the schema) and as a type
//! (`KeysOnly`, `NewImage`, `OldImage`, `NewAndOldImages`), so that a change read from a
//! stream that carries no image has no image field to read. A model's stream is
//! `Streamed`, in `model.rs` with the other traits the derive implements.

use std::fmt;

use crate::error::Result;
use crate::value::Item;

/// What a table's stream records carry besides the key: DynamoDB's `StreamViewType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StreamView {
    /// Only the key attributes.
    KeysOnly,
    /// The item as it is after the change.
    NewImage,
    /// The item as it was before the change.
    OldImage,
    /// Both.
    NewAndOldImages,
}

impl StreamView {
    /// DynamoDB's name: `KEYS_ONLY`, `NEW_IMAGE`, `OLD_IMAGE` or `NEW_AND_OLD_IMAGES`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::KeysOnly => "KEYS_ONLY",
            Self::NewImage => "NEW_IMAGE",
            Self::OldImage => "OLD_IMAGE",
            Self::NewAndOldImages => "NEW_AND_OLD_IMAGES",
        }
    }

    /// The view type DynamoDB names `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "KEYS_ONLY" => Self::KeysOnly,
            "NEW_IMAGE" => Self::NewImage,
            "OLD_IMAGE" => Self::OldImage,
            "NEW_AND_OLD_IMAGES" => Self::NewAndOldImages,
            _ => return None,
        })
    }

    /// The SDK's value.
    pub(crate) fn to_sdk(self) -> aws_sdk_dynamodb::types::StreamViewType {
        aws_sdk_dynamodb::types::StreamViewType::from(self.as_str())
    }

    /// Whether records carry the item after the change.
    pub const fn has_new_image(self) -> bool {
        matches!(self, Self::NewImage | Self::NewAndOldImages)
    }

    /// Whether records carry the item before the change.
    pub const fn has_old_image(self) -> bool {
        matches!(self, Self::OldImage | Self::NewAndOldImages)
    }
}

impl fmt::Display for StreamView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The place of an image that the stream's view type does not carry. It has no value to
/// read: a keys-only change is `Insert { new: NoImage }`, never an `Option` that is always
/// `None`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct NoImage;

/// A stream view type as a type: which images a change carries, and their Rust types.
///
/// Implemented by [`KeysOnly`], [`NewImage`], [`OldImage`] and [`NewAndOldImages`].
pub trait View: Send + Sync + 'static {
    /// The view type this type stands for.
    const TYPE: StreamView;
    /// The item after the change: `T`, or [`NoImage`].
    type New<T: Send + 'static>: Send + 'static;
    /// The item before the change: `T`, or [`NoImage`].
    type Old<T: Send + 'static>: Send + 'static;

    /// Decodes the new image with `decode`, or gives [`NoImage`] when the view has none.
    /// `None` is for a record that should have the image and does not.
    #[doc(hidden)]
    fn new_image<T: Send + 'static>(
        image: Option<Item>,
        decode: &mut dyn FnMut(Item) -> Result<T>,
    ) -> Option<Result<Self::New<T>>>;

    /// Decodes the old image with `decode`, or gives [`NoImage`] when the view has none.
    #[doc(hidden)]
    fn old_image<T: Send + 'static>(
        image: Option<Item>,
        decode: &mut dyn FnMut(Item) -> Result<T>,
    ) -> Option<Result<Self::Old<T>>>;
}

/// Decodes an image the view carries.
fn carried<T>(image: Option<Item>, decode: &mut dyn FnMut(Item) -> Result<T>) -> Option<Result<T>> {
    image.map(decode)
}

macro_rules! view {
    ($(#[$doc:meta])* $name:ident, $new:ident, $old:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl View for $name {
            const TYPE: StreamView = StreamView::$name;
            type New<T: Send + 'static> = view!(@ty $new T);
            type Old<T: Send + 'static> = view!(@ty $old T);

            fn new_image<T: Send + 'static>(
                image: Option<Item>,
                decode: &mut dyn FnMut(Item) -> Result<T>,
            ) -> Option<Result<Self::New<T>>> {
                view!(@decode $new image decode)
            }

            fn old_image<T: Send + 'static>(
                image: Option<Item>,
                decode: &mut dyn FnMut(Item) -> Result<T>,
            ) -> Option<Result<Self::Old<T>>> {
                view!(@decode $old image decode)
            }
        }
    };
    (@ty yes $t:ident) => { $t };
    (@ty no $t:ident) => { NoImage };
    (@decode yes $image:ident $decode:ident) => { carried($image, $decode) };
    (@decode no $image:ident $decode:ident) => {{
        let _ = ($image, $decode);
        Some(Ok(NoImage))
    }};
}

view!(
    /// `KEYS_ONLY`: a change carries its key and no image.
    KeysOnly, no, no
);
view!(
    /// `NEW_IMAGE`: a change carries the item after it (not on a removal).
    NewImage, yes, no
);
view!(
    /// `OLD_IMAGE`: a change carries the item before it (not on an insert).
    OldImage, no, yes
);
view!(
    /// `NEW_AND_OLD_IMAGES`: a change carries the item before and after it.
    NewAndOldImages, yes, yes
);
