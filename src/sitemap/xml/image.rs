//! `<image:image>`: Google's image extension, one row of [`ImageBuilder::FIELDS`] per child
//! ([image sitemap reference](https://developers.google.com/search/docs/crawling-indexing/sitemaps/image-sitemaps)).

use super::rules::{self, Check, Child, Field, Fields, Seen};
use super::{Position, Sink};
use crate::sitemap::{Code, Image};

/// Images per page Google reads (Google's image sitemap reference).
pub(super) const MAX_IMAGES: usize = 1_000;

/// An image being read.
#[derive(Debug, Default)]
pub(super) struct ImageBuilder {
    image: Image,
    seen: Seen,
}

/// A row of the table below.
type Row = Field<ImageBuilder>;

impl Fields for ImageBuilder {
    const FIELDS: &'static [Field<Self>] =
        &[Row::new("image:loc", Check::Url(|b, u| b.image.loc = u)).required()];

    fn seen(&mut self) -> &mut Seen {
        &mut self.seen
    }
}

impl ImageBuilder {
    /// An image starting at `at`, on a page that has `images` already.
    pub(super) fn new(sink: &mut Sink, at: Position, images: usize) -> ImageBuilder {
        if images == MAX_IMAGES {
            sink.report(
                Code::TooManyTags,
                at,
                format!("more than {MAX_IMAGES} images for one page: the rest are not used"),
            );
        }
        ImageBuilder {
            image: Image {
                loc: String::new(),
                position: at,
            },
            seen: Seen::default(),
        }
    }

    /// What `<image:{local}>` is (reported when retired).
    pub(super) fn child(sink: &mut Sink, at: Position, local: &[u8]) -> Child {
        if let Some(row) = rules::find(Self::FIELDS, b"image", local) {
            return Child::Row(row);
        }
        if !matches!(local, b"caption" | b"title" | b"geo_location" | b"license") {
            return Child::Unknown;
        }
        sink.report(
            Code::RetiredTag,
            at,
            format!(
                "<image:{}> was retired by Google in 2022: it is ignored",
                String::from_utf8_lossy(local)
            ),
        );
        Child::Retired
    }

    /// The image when `</image:image>` ends; `None` when it has no usable `<image:loc>`
    /// (reported, unless its `<image:loc>` was there and reported as unusable).
    pub(super) fn finish(self, sink: &mut Sink) -> Option<Image> {
        if let Some(missing) = rules::missing::<Self>(&self.seen) {
            if !self.seen.required_bad {
                sink.report(
                    Code::MissingTag,
                    self.image.position,
                    format!("<image:image> without {missing}"),
                );
            }
            return None;
        }
        Some(self.image)
    }
}
