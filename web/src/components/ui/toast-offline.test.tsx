import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ToastProvider, useToast, type ToastApi } from './toast';

// The renderer's chunk fails to load, as when the network drops just before an error toast.
jest.mock('./toast-viewport', () => {
  throw new Error('Failed to fetch dynamically imported module');
});

let api: ToastApi;
function Capture() {
  api = useToast();
  return null;
}

it('still shows the toast, plainly, when the Radix renderer cannot load', async () => {
  jest.spyOn(console, 'error').mockImplementation(() => undefined);
  render(
    <ToastProvider>
      <Capture />
    </ToastProvider>,
  );
  act(() => void api.toast({ variant: 'destructive', title: 'Error', description: 'Failed to record consent. Please try again.' }));
  expect(await screen.findByText('Failed to record consent. Please try again.')).toBeInTheDocument();
  expect(screen.getByRole('status')).toHaveTextContent('Error');
  await userEvent.click(screen.getByRole('button', { name: 'Dismiss' }));
  expect(screen.queryByText('Failed to record consent. Please try again.')).not.toBeInTheDocument();
});
