//! The `predict` method and the private `send_with` that every single-write builder shares,
//! written once as a macro.

/// The `predict` method and the private `send_with` of a single-write builder with a
/// `client` and a `spec()`, written once.
macro_rules! predict_and_send_with {
    () => {
        /// The capacity the request would consume, predicted from the request and the
        /// model's schema without sending it: exact where the request decides it, a range
        /// with its reasons where the item already stored does. Every error `send` would
        /// find before sending is found here.
        pub fn predict(&self) -> Result<$crate::observe::Predicted> {
            $crate::item::predict::single(&self.client, &self.clone().spec()?)
        }

        async fn send_with(self, return_values: ReturnValue) -> Result<Option<Item>> {
            $crate::item::guarded::send_spec(self.client.clone(), self.spec(), return_values).await
        }
    };
}

pub(crate) use predict_and_send_with;
