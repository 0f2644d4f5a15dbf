import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { TOAST_REMOVE_DELAY, ToastProvider, useToast, type ToastApi } from './toast';

let api: ToastApi;
function Capture() {
  api = useToast();
  return null;
}

function renderToasts() {
  return render(
    <ToastProvider>
      <Capture />
    </ToastProvider>,
  );
}

afterEach(() => jest.useRealTimers());

describe('toasts', () => {
  it('shows a destructive toast with its title and description', async () => {
    renderToasts();
    act(() => void api.toast({ variant: 'destructive', title: 'Error', description: 'Failed to save admin note.' }));
    expect(await screen.findByText('Failed to save admin note.')).toBeInTheDocument();
    expect(screen.getByText('Error').closest('[data-variant]')).toHaveAttribute('data-variant', 'destructive');
  });

  it('keeps at most one toast: a new one replaces the old', async () => {
    renderToasts();
    act(() => void api.toast({ title: 'Note saved' }));
    await screen.findByText('Note saved');
    act(() => void api.toast({ title: 'User deleted' }));
    expect(await screen.findByText('User deleted')).toBeInTheDocument();
    expect(screen.queryByText('Note saved')).not.toBeInTheDocument();
    expect(api.toasts).toHaveLength(1);
  });

  it('removes a dismissed toast from the list after 1,000,000 ms', async () => {
    renderToasts();
    let id = '';
    act(() => void (id = api.toast({ title: 'Entry created' }).id));
    await screen.findByText('Entry created');
    jest.useFakeTimers();
    act(() => api.dismiss(id));
    expect(api.toasts).toEqual([expect.objectContaining({ id, open: false })]);
    act(() => jest.advanceTimersByTime(TOAST_REMOVE_DELAY - 1));
    expect(api.toasts).toHaveLength(1);
    act(() => jest.advanceTimersByTime(1));
    expect(api.toasts).toHaveLength(0);
    expect(TOAST_REMOVE_DELAY).toBe(1_000_000);
  });

  it('closes with its close button', async () => {
    renderToasts();
    act(() => void api.toast({ title: 'Password updated' }));
    await screen.findByText('Password updated');
    await userEvent.click(screen.getByRole('button', { name: 'Close' }));
    expect(api.toasts[0]?.open).toBe(false);
  });

  it('needs the provider', () => {
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(() => render(<Capture />)).toThrow('useToast must be used inside <ToastProvider>');
  });
});
